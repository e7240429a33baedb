import Foundation
import HandoffCore
@testable import HandoffControl

/// Foundation's JSONSerialization beside our reader and writer: the tests read our text back
/// through it, and its objects through ours. Here, not in HandoffControl, which imports only
/// FoundationEssentials (JSONSerialization and NSNumber are in Foundation, with ICU).
extension JSONValue {
    /// Converts a JSONSerialization object (Any) into a property-list value, within `limits`.
    /// For JSON that comes from elsewhere than a peer or a client (tests, files); lines from
    /// clients go through `parse`, which keeps integers and reals exact.
    static func propertyList(from object: Any, limits: CodecLimits = .default) throws(Problem) -> PropertyListValue {
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

    /// The JSON object (for JSONSerialization) of a property-list value.
    static func object(_ value: PropertyListValue) -> Any {
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

extension UserActivity {
    /// The activity as a JSONSerialization object.
    var jsonObject: Any { JSONValue.object(propertyList) }
}
