#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// The mapping between D-Bus values and the control operations' values (docs/DBUS.md, "Values"):
/// strings, integers, doubles, booleans and byte arrays as themselves; objects as `a{sv}`; lists
/// as `av`; a date as `{"$date": "<ISO 8601>"}`, the control socket's own tag.
extension BusValue {
    /// A property-list value as a D-Bus value: what a method answers.
    public init(_ value: PropertyListValue) {
        switch value {
        case .string(let s): self = .string(s)
        case .integer(let i): self = .int64(i)
        case .real(let r): self = .double(r)
        case .bool(let b): self = .bool(b)
        case .date(let d): self = .vardict([("$date", .string(ISODate.string(d)))])
        case .data(let d): self = .array(element: "y", d.map(BusValue.byte))
        case .array(let a): self = .array(element: "v", a.map { .variant(BusValue($0)) })
        case .dictionary(let d): self = .vardict(d.keys.sorted().map { ($0, BusValue(d[$0]!)) })
        }
    }

    /// A list of objects as `aa{sv}` (a listing's items).
    public static func objects(_ items: [PropertyListValue]) -> BusValue {
        .array(element: "a{sv}", items.map { BusValue($0) })
    }

    /// What a caller sent, as a property-list value; the error names what has no mapping.
    public func propertyList(limits: CodecLimits = .default) throws(BusValueProblem) -> PropertyListValue {
        var budget = Budget(values: limits.maxValues, bytes: limits.maxBytes)
        return try convert(depth: 0, limits: limits, budget: &budget)
    }

    /// What is left of the limits (the same the control socket's JSON reader keeps).
    private struct Budget {
        var values: Int
        var bytes: Int

        mutating func take(values n: Int = 1, bytes b: Int = 0, limits: CodecLimits) throws(BusValueProblem) {
            values -= n
            bytes -= b
            guard values >= 0 else { throw .tooMany(limits.maxValues) }
            guard bytes >= 0 else { throw .tooLong(limits.maxBytes) }
        }
    }

    private func convert(depth: Int, limits: CodecLimits, budget: inout Budget) throws(BusValueProblem) -> PropertyListValue {
        guard depth <= limits.maxDepth else { throw .tooDeep(limits.maxDepth) }
        try budget.take(limits: limits)
        switch self {
        case .string(let s), .objectPath(let s), .signature(let s):
            try budget.take(values: 0, bytes: s.utf8.count, limits: limits)
            return .string(s)
        case .bool(let b): return .bool(b)
        case .double(let d): return .real(d)
        case .uint64(let v):
            guard let i = Int64(exactly: v) else { throw .outOfRange }
            return .integer(i)
        case .fd: throw .unsupported("h (a file descriptor)")
        case .byte, .int16, .uint16, .int32, .uint32, .int64: return .integer(integerValue!)
        case .variant(let inner): return try inner.convert(depth: depth, limits: limits, budget: &budget)
        case .array("y", let bytes):
            try budget.take(values: 0, bytes: bytes.count, limits: limits)
            return .data(Data(bytes.compactMap { if case .byte(let b) = $0 { b } else { nil } }))
        case .array(_, let items), .structure(let items):
            var out: [PropertyListValue] = []
            for item in items { out.append(try item.convert(depth: depth + 1, limits: limits, budget: &budget)) }
            return .array(out)
        case .dictionary(let keyType, _, let entries):
            guard keyType == "s" else { throw .unsupported("a dictionary with \(keyType) keys (keys are strings)") }
            var out: [String: PropertyListValue] = [:]
            for e in entries {
                guard let k = e.key.stringValue else { throw .unsupported("a dictionary key that is not a string") }
                guard k.utf8.count <= limits.maxKeyBytes else { throw .tooLong(limits.maxKeyBytes) }
                out[k] = try e.value.convert(depth: depth + 1, limits: limits, budget: &budget)
            }
            // The control socket's tag for a date.
            if out.count == 1, let text = out["$date"]?.stringValue {
                do throws(ISODate.Problem) { return .date(try ISODate.parse(text)) } catch { throw .badDate(text) }
            }
            return .dictionary(out)
        }
    }
}

/// Why a D-Bus value has no property-list form.
public enum BusValueProblem: Error, Sendable, Equatable, CustomStringConvertible {
    case unsupported(String)
    case tooDeep(Int)
    case tooLong(Int)
    case tooMany(Int)
    case outOfRange
    case badDate(String)

    public var description: String {
        switch self {
        case .unsupported(let what): "\(what) has no meaning here"
        case .tooDeep(let n): "values nest deeper than \(n) levels"
        case .tooLong(let n): "strings and byte arrays exceed \(n) bytes"
        case .tooMany(let n): "more than \(n) values in all"
        case .outOfRange: "an unsigned integer above 2^63-1"
        case .badDate(let t): "'\(t)' is not an ISO 8601 date (e.g. 2026-11-25T10:00:00Z)"
        }
    }
}
