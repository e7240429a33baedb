#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Decodes the canonical encoding from untrusted bytes.
///
/// Every length and count is checked against the bytes that remain before anything is allocated,
/// recursion stops at `limits.maxDepth`, and non-canonical forms are refused so that one value has
/// exactly one accepted encoding.
public struct BoundedDecoder: Sendable {
    public var limits: CodecLimits

    public init(limits: CodecLimits = .default) { self.limits = limits }

    public func decode(_ data: Data) throws(CodecError) -> PropertyListValue { try decode(bytes: Array(data)) }

    /// Bytes already in an array (a peer's message) are read where they are.
    public func decode(bytes: [UInt8]) throws(CodecError) -> PropertyListValue {
        if bytes.count > limits.maxBytes {
            throw .inputTooLarge(size: bytes.count, limit: limits.maxBytes)
        }
        var reader = Reader(bytes: bytes, limits: limits)
        try reader.expectHeader()
        let value = try reader.readValue(depth: 1)
        if reader.offset != reader.bytes.count {
            throw .trailingBytes(count: reader.bytes.count - reader.offset)
        }
        return value
    }

    private struct Reader {
        let bytes: [UInt8]
        let limits: CodecLimits
        var offset = 0
        var valueCount = 0

        var remaining: Int { bytes.count - offset }

        mutating func expectHeader() throws(CodecError) {
            guard bytes.count >= 2, bytes[0] == WireFormat.magic[0], bytes[1] == WireFormat.magic[1] else {
                throw .badMagic
            }
            guard bytes.count >= 3 else { throw .truncated(offset: 2) }
            guard bytes[2] == WireFormat.version else { throw .unsupportedFormatVersion(bytes[2]) }
            offset = 3
        }

        mutating func readValue(depth: Int) throws(CodecError) -> PropertyListValue {
            valueCount += 1
            if valueCount > limits.maxValues { throw .tooManyValues(limit: limits.maxValues) }
            let tagOffset = offset
            let raw = try readByte()
            guard let tag = WireTag(rawValue: raw) else { throw .unknownTag(raw, offset: tagOffset) }
            switch tag {
            case .string:
                return .string(try readString())
            case .integer:
                return .integer(Varint.unzigzag(try readVarint()))
            case .real:
                let r = Double(bitPattern: try readFixed())
                // NaN is not equal to itself: a value holding it could never be compared or
                // round-tripped, so no side accepts it (infinities are fine).
                guard !r.isNaN else { throw .nonCanonical("real is NaN", offset: tagOffset) }
                return .real(r)
            case .boolFalse:
                return .bool(false)
            case .boolTrue:
                return .bool(true)
            case .date:
                let seconds = Double(bitPattern: try readFixed())
                guard seconds.isFinite else { throw .nonCanonical("date is not finite", offset: tagOffset) }
                guard ISODate.isInRange(Date(timeIntervalSinceReferenceDate: seconds)) else {
                    throw .nonCanonical("date outside the years 1-9999", offset: tagOffset)
                }
                return .date(Date(timeIntervalSinceReferenceDate: seconds))
            case .data:
                return .data(Data(try readLengthPrefixed()))
            case .array:
                if depth > limits.maxDepth { throw .depthExceeded(limit: limits.maxDepth) }
                let count = try readCount(minimumBytesEach: 1)
                var items: [PropertyListValue] = []
                items.reserveCapacity(count)
                for _ in 0..<count { items.append(try readValue(depth: depth + 1)) }
                return .array(items)
            case .dictionary:
                if depth > limits.maxDepth { throw .depthExceeded(limit: limits.maxDepth) }
                let count = try readCount(minimumBytesEach: 2)
                // Made with its capacity: `reserveCapacity` on an empty one ran the standard
                // library's generic entry, which made the storage's type at run time for every
                // dictionary read (~1.4 k instructions each, bench-push-work).
                var dict = [String: PropertyListValue](minimumCapacity: count)
                var previousKey: ArraySlice<UInt8>? = nil
                for _ in 0..<count {
                    let keyOffset = offset
                    let keyBytes = try readLengthPrefixed()
                    if keyBytes.count > limits.maxKeyBytes {
                        throw .nonCanonical("a key is longer than \(limits.maxKeyBytes) bytes", offset: keyOffset)
                    }
                    if let previousKey, !previousKey.lexicographicallyPrecedes(keyBytes) {
                        throw .nonCanonical("dictionary keys out of order or repeated", offset: keyOffset)
                    }
                    guard let key = String(validUTF8: keyBytes) else {
                        throw .invalidUTF8(offset: keyOffset)
                    }
                    previousKey = keyBytes
                    // Swift compares strings by canonical equivalence: two different byte sequences
                    // can be the same key, which must not silently overwrite each other. One
                    // lookup, the insertion's: a look first hashed every key twice.
                    if dict.updateValue(try readValue(depth: depth + 1), forKey: key) != nil {
                        throw .nonCanonical("two keys are canonically equivalent", offset: keyOffset)
                    }
                }
                return .dictionary(dict)
            }
        }

        mutating func readByte() throws(CodecError) -> UInt8 {
            guard offset < bytes.count else { throw .truncated(offset: offset) }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func readVarint() throws(CodecError) -> UInt64 {
            let start = offset
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let byte = try readByte()
                if shift == 63 && byte > 1 { throw .nonCanonical("varint overflows 64 bits", offset: start) }
                result |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 {
                    if byte == 0 && offset - start > 1 {
                        throw .nonCanonical("varint has redundant bytes", offset: start)
                    }
                    return result
                }
                shift += 7
            }
        }

        mutating func readCount(minimumBytesEach: Int) throws(CodecError) -> Int {
            let start = offset
            let count = try readVarint()
            // Each element needs at least a byte or two, so a count above this is a lie.
            guard count <= UInt64(remaining / minimumBytesEach) else { throw .truncated(offset: start) }
            let n = Int(count)
            if n > limits.maxValues - valueCount { throw .tooManyValues(limit: limits.maxValues) }
            return n
        }

        mutating func readLengthPrefixed() throws(CodecError) -> ArraySlice<UInt8> {
            let start = offset
            let length = try readVarint()
            guard length <= UInt64(remaining) else { throw .truncated(offset: start) }
            let end = offset + Int(length)
            defer { offset = end }
            return bytes[offset..<end]
        }

        mutating func readString() throws(CodecError) -> String {
            let start = offset
            let slice = try readLengthPrefixed()
            guard let s = String(validUTF8: slice) else { throw .invalidUTF8(offset: start) }
            return s
        }

        mutating func readFixed() throws(CodecError) -> UInt64 {
            guard remaining >= 8 else { throw .truncated(offset: offset) }
            var v: UInt64 = 0
            for i in 0..<8 { v = (v << 8) | UInt64(bytes[offset + i]) }
            offset += 8
            return v
        }
    }
}
