#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes the one canonical encoding of a value: dictionary keys in UTF-8 byte order, minimal
/// varints, fixed-width big-endian reals. Equal values give identical bytes, so encodings can be
/// hashed and compared.
public struct CanonicalEncoder: Sendable {
    public var limits: CodecLimits

    public init(limits: CodecLimits = .default) { self.limits = limits }

    /// A value of a dictionary written by `encodedBytes(ordered:)`: a property-list value, or an
    /// activity written from its fields.
    public enum Piece: Sendable {
        case value(PropertyListValue)
        case activity(UserActivity)
    }

    public func encode(_ value: PropertyListValue) throws(CodecError) -> Data { Data(try encodedBytes(value)) }

    /// The encoding as the bytes written: a peer message goes to the link as bytes, and a copy
    /// through `Data` and back cost it two walks of generic code (perf, a push).
    public func encodedBytes(_ value: PropertyListValue) throws(CodecError) -> [UInt8] {
        var writer = Writer(limits: limits)
        try writer.write(value, depth: 1)
        return try writer.finished()
    }

    /// An activity's encoding, written from its fields in their canonical order: the same bytes
    /// as its `propertyList`'s, without building that dictionary and sorting it.
    public func encodedBytes(_ activity: UserActivity) throws(CodecError) -> [UInt8] {
        var writer = Writer(limits: limits)
        try writer.write(ordered: activity.orderedFields, depth: 1)
        return try writer.finished()
    }

    /// A dictionary given as its entries in canonical key order (UTF-8 byte order; checked in
    /// debug builds), written as it is given: a message around the activity it carries. The
    /// same bytes as the dictionary's; a push spent a third of its encoding building and sorting
    /// the message's and the activity's dictionaries (docs/PERFORMANCE.md).
    public func encodedBytes(ordered entries: [(key: String, value: Piece)]) throws(CodecError) -> [UInt8] {
        assert(zip(entries, entries.dropFirst()).allSatisfy { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) })
        var writer = Writer(limits: limits)
        try writer.dictionary(count: entries.count, depth: 1) { (w, i) throws(CodecError) in
            try w.key(entries[i].key)
            switch entries[i].value {
            case .value(let v): try w.write(v, depth: 2)
            case .activity(let a): try w.write(ordered: a.orderedFields, depth: 2)
            }
        }
        return try writer.finished()
    }

    private struct Writer {
        let limits: CodecLimits
        var bytes: [UInt8]
        var valueCount = 0

        init(limits: CodecLimits) {
            self.limits = limits
            // One allocation for most messages (an activity is a few hundred bytes): growing
            // from empty copied the bytes six times.
            bytes = []
            bytes.reserveCapacity(512)
            bytes.append(contentsOf: WireFormat.magic)
            bytes.append(WireFormat.version)
        }

        func finished() throws(CodecError) -> [UInt8] {
            if bytes.count > limits.maxBytes { throw .inputTooLarge(size: bytes.count, limit: limits.maxBytes) }
            return bytes
        }

        /// A dictionary of `count` entries, each written by `entry` (its key, then its value),
        /// counted and bounded as every value is.
        mutating func dictionary(
            count: Int, depth: Int, _ entry: (inout Writer, Int) throws(CodecError) -> Void
        ) throws(CodecError) {
            valueCount += 1
            if valueCount > limits.maxValues { throw .tooManyValues(limit: limits.maxValues) }
            if depth > limits.maxDepth { throw .depthExceeded(limit: limits.maxDepth) }
            tag(.dictionary)
            writeVarint(UInt64(count))
            for i in 0..<count { try entry(&self, i) }
            if bytes.count > limits.maxBytes { throw .inputTooLarge(size: bytes.count, limit: limits.maxBytes) }
        }

        /// Fields already in canonical key order (an activity's).
        mutating func write(ordered fields: [(key: String, value: PropertyListValue)], depth: Int) throws(CodecError) {
            try dictionary(count: fields.count, depth: depth) { (w, i) throws(CodecError) in
                try w.key(fields[i].key)
                try w.write(fields[i].value, depth: depth + 1)
            }
        }

        mutating func key(_ key: String) throws(CodecError) {
            if key.utf8.count > limits.maxKeyBytes {
                throw .field(String(decoding: key.utf8.prefix(32), as: UTF8.self), problem: "the key is longer than \(limits.maxKeyBytes) bytes")
            }
            writeUTF8(key)
        }

        mutating func write(_ value: PropertyListValue, depth: Int) throws(CodecError) {
            if case .dictionary(let dict) = value {
                // Sorted with their values: looking each key up again hashed it a second time.
                return try write(ordered: dict.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }, depth: depth)
            }
            valueCount += 1
            if valueCount > limits.maxValues { throw .tooManyValues(limit: limits.maxValues) }
            switch value {
            case .string(let s):
                tag(.string)
                writeUTF8(s)
            case .integer(let i):
                tag(.integer)
                writeVarint(Varint.zigzag(i))
            case .real(let d):
                if d.isNaN { throw .field("(value)", problem: "a real may not be NaN") }
                tag(.real)
                writeFixed(d.bitPattern)
            case .bool(let b):
                tag(b ? .boolTrue : .boolFalse)
            case .date(let date):
                guard ISODate.isInRange(date) else { throw .field("(value)", problem: "date \(ISODate.string(date)) is outside the years 1-9999") }
                tag(.date)
                writeFixed(date.timeIntervalSinceReferenceDate.bitPattern)
            case .data(let d):
                tag(.data)
                d.withUnsafeBytes { writeBytes($0) }
            case .array(let items):
                if depth > limits.maxDepth { throw .depthExceeded(limit: limits.maxDepth) }
                tag(.array)
                writeVarint(UInt64(items.count))
                for item in items { try write(item, depth: depth + 1) }
            case .dictionary: break  // written above, with its entries in order
            }
            if bytes.count > limits.maxBytes {
                throw .inputTooLarge(size: bytes.count, limit: limits.maxBytes)
            }
        }

        mutating func tag(_ t: WireTag) { bytes.append(t.rawValue) }

        mutating func writeBytes(_ b: UnsafeRawBufferPointer) {
            writeVarint(UInt64(b.count))
            bytes.append(contentsOf: b)
        }

        /// A string's UTF-8 where it lies (a native string's are contiguous): `Array(s.utf8)`
        /// allocated an array for every string and key written.
        mutating func writeUTF8(_ s: String) {
            var s = s
            s.withUTF8 { writeBytes(UnsafeRawBufferPointer($0)) }
        }

        mutating func writeVarint(_ v: UInt64) { Varint.append(v, to: &bytes) }

        mutating func writeFixed(_ v: UInt64) {
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: v >> UInt64(shift))) }
        }
    }
}
