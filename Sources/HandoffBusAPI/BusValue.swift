#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A D-Bus value with its type: what a message carries, read or to be written. The D-Bus door
/// turns these into the control operations' property-list values and back (BusValue+PropertyList).
public indirect enum BusValue: Sendable, Equatable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// A file descriptor (`h`), as its number in this process.
    case fd(Int32)
    /// An array whose elements have `element` as their signature (needed for empty arrays).
    case array(element: String, [BusValue])
    /// `a{KV}`: entries in order; `key` and `value` are the entries' signatures.
    case dictionary(key: String, value: String, [Entry])
    case variant(BusValue)
    case structure([BusValue])

    public struct Entry: Sendable, Equatable {
        public var key: BusValue
        public var value: BusValue
        public init(_ key: BusValue, _ value: BusValue) { (self.key, self.value) = (key, value) }
    }

    /// The value's D-Bus signature.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .fd: "h"
        case .array(let element, _): "a" + element
        case .dictionary(let k, let v, _): "a{" + k + v + "}"
        case .variant: "v"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        }
    }

    /// `a{sv}` from string keys.
    public static func vardict(_ entries: [(String, BusValue)]) -> BusValue {
        .dictionary(key: "s", value: "v", entries.map { Entry(.string($0.0), .variant($0.1)) })
    }

    public var stringValue: String? {
        switch self {
        case .string(let s), .objectPath(let s), .signature(let s): s
        default: nil
        }
    }

    /// Any integer type, as Int64 when it fits.
    public var integerValue: Int64? {
        switch self {
        case .byte(let v): Int64(v)
        case .int16(let v): Int64(v)
        case .uint16(let v): Int64(v)
        case .int32(let v): Int64(v)
        case .uint32(let v): Int64(v)
        case .int64(let v): v
        case .uint64(let v): Int64(exactly: v)
        default: nil
        }
    }

    /// The entries of an `a{s…}` by key (variants unwrapped).
    public var stringDictionary: [String: BusValue]? {
        guard case .dictionary("s", _, let entries) = self else { return nil }
        var out: [String: BusValue] = [:]
        for e in entries {
            guard let k = e.key.stringValue else { return nil }
            if case .variant(let inner) = e.value { out[k] = inner } else { out[k] = e.value }
        }
        return out
    }
}

/// Splits a signature into its complete types: "sa{sv}as" -> ["s", "a{sv}", "as"]. nil if the
/// signature is not well formed.
public enum BusSignature {
    public static func split(_ signature: String) -> [String]? {
        var out: [String] = []
        var rest = Substring(signature)
        while !rest.isEmpty {
            guard let n = completeLength(rest) else { return nil }
            out.append(String(rest.prefix(n)))
            rest = rest.dropFirst(n)
        }
        return out
    }

    /// The length of the first complete type in `s`.
    static func completeLength(_ s: Substring) -> Int? {
        guard let c = s.first else { return nil }
        switch c {
        case "y", "b", "n", "q", "i", "u", "x", "t", "d", "s", "o", "g", "h", "v": return 1
        case "a":
            guard let n = completeLength(s.dropFirst()) else { return nil }
            return 1 + n
        case "(", "{":
            let close: Character = c == "(" ? ")" : "}"
            var i = s.index(after: s.startIndex)
            var length = 1
            while i < s.endIndex && s[i] != close {
                guard let n = completeLength(s[i...]) else { return nil }
                i = s.index(i, offsetBy: n)
                length += n
            }
            return i < s.endIndex ? length + 1 : nil
        default: return nil
        }
    }
}
