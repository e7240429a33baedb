#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
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

    /// A property-list value as JSON text (keys sorted), the mapping of docs/CONTROL.md.
    public static func text(_ value: PropertyListValue) -> String { String(decoding: JSONWriter.encode(value), as: UTF8.self) }
}
