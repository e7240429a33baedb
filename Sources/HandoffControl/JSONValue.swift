import Foundation
import HandoffCore

/// Property-list values as JSON, losslessly: strings, booleans, integers, arrays and objects map
/// to themselves; the kinds JSON lacks are tagged objects:
///   {"$real": 1.0} for a real with no fraction, {"$real": "inf"}, {"$date": "2026-11-21T20:00:00.000Z"}
///   (as many fraction digits as the date needs), {"$data": "<base64>"}.
/// A real with a fraction is a plain JSON number, written shortest-round-trip. A dictionary whose
/// only key starts with "$" is written with one more "$" before that key, so it never reads as a tag.
public enum JSONValue {
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case notJSON(String)
        case unsupported(path: String, what: String)
        case limit(String)

        public var description: String {
            switch self {
            case .notJSON(let why): "not valid JSON: \(why)"
            case .unsupported(let path, let what): "\(path): \(what) cannot be a property-list value"
            case .limit(let why): "too large: \(why)"
            }
        }
    }

    /// Reads JSON text (one control line) into a property-list value, within `limits`.
    public static func parse(_ bytes: [UInt8], limits: CodecLimits = .default) throws(Problem) -> PropertyListValue {
        try JSONReader.read(bytes, limits: limits)
    }

    /// Converts a JSONSerialization object (Any) into a property-list value, within `limits`.
    /// For JSON that comes from elsewhere than a peer or a client (tests, files); lines from
    /// clients go through `parse`, which keeps integers and reals exact.
    public static func propertyList(from object: Any, limits: CodecLimits = .default) throws(Problem) -> PropertyListValue {
        var count = 0
        return try convert(object, path: "$", depth: 1, count: &count, limits: limits)
    }

    private static func convert(_ o: Any, path: String, depth: Int, count: inout Int, limits: CodecLimits) throws(Problem) -> PropertyListValue {
        count += 1
        if count > limits.maxValues { throw .limit("more than \(limits.maxValues) values") }
        switch o {
        case let s as String:
            return .string(s)
        case let n as NSNumber:
            // JSONSerialization gives booleans objCType "c", reals "d", integers "i" or "q".
            switch String(cString: n.objCType) {
            case "c", "B": return .bool(n.boolValue)
            case "d", "f": return .real(n.doubleValue)
            default:
                guard let i = Int64(exactly: n) else { return .real(n.doubleValue) }
                return .integer(i)
            }
        case let a as [Any]:
            if depth > limits.maxDepth { throw .limit("nested deeper than \(limits.maxDepth)") }
            var out: [PropertyListValue] = []
            for (i, item) in a.enumerated() { out.append(try convert(item, path: "\(path)[\(i)]", depth: depth + 1, count: &count, limits: limits)) }
            return .array(out)
        case let d as [String: Any]:
            if d.count == 1, let (k, v) = d.first, k.hasPrefix("$"), !k.hasPrefix("$$") {
                return try JSONReader.tagged(k, try convert(v, path: path, depth: depth, count: &count, limits: limits), path: path)
            }
            if depth > limits.maxDepth { throw .limit("nested deeper than \(limits.maxDepth)") }
            var out: [String: PropertyListValue] = [:]
            for (k, v) in d {
                if k.utf8.count > limits.maxKeyBytes { throw .limit("a key at \(path) is longer than \(limits.maxKeyBytes) bytes") }
                out[k] = try convert(v, path: "\(path).\(k)", depth: depth + 1, count: &count, limits: limits)
            }
            if out.count == 1, let (k, v) = out.first, k.hasPrefix("$$") { return .dictionary([String(k.dropFirst()): v]) }
            return .dictionary(out)
        case is NSNull:
            throw .unsupported(path: path, what: "null")
        default:
            throw .unsupported(path: path, what: "\(type(of: o))")
        }
    }

    /// A property-list value as JSON text (keys sorted), the mapping of docs/CONTROL.md.
    public static func text(_ value: PropertyListValue) -> String { String(decoding: JSONWriter.encode(value), as: UTF8.self) }

    /// The JSON object (for JSONSerialization) of a property-list value.
    public static func object(_ value: PropertyListValue) -> Any {
        switch value {
        case .string(let s): s
        case .integer(let i): NSNumber(value: i)
        case .real(let r): r.rounded() == r && r.isFinite ? ["$real": NSNumber(value: r)] as [String: Any] : NSNumber(value: r)
        case .bool(let b): NSNumber(value: b)
        case .date(let d): ["$date": ISODate.string(d)]
        case .data(let d): ["$data": d.base64EncodedString()]
        case .array(let a): a.map(object)
        case .dictionary(let d):
            if d.count == 1, let (k, v) = d.first, k.hasPrefix("$") { ["$" + k: object(v)] } else { d.mapValues(object) }
        }
    }
}
