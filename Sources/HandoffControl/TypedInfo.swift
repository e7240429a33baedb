#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// `handoffctl publish --info key=value`: a value is a string unless typed with a prefix:
/// `int:42`, `real:1.5`, `bool:true`, `date:2026-11-21T20:00:00Z`, `data:<base64>`, `str:int:x`
/// (the literal string "int:x").
public enum TypedInfo {
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public let argument: String
        public let reason: String
        public var description: String {
            "--info \(argument): \(reason); use key=value, key=int:42, key=real:1.5, key=bool:true, key=date:ISO8601, key=data:BASE64"
        }
    }

    public static func parse(_ argument: String) throws(Problem) -> (String, PropertyListValue) {
        guard let eq = argument.firstIndex(of: "="), eq != argument.startIndex else {
            throw Problem(argument: argument, reason: "expected key=value")
        }
        let key = String(argument[..<eq])
        let raw = String(argument[argument.index(after: eq)...])
        func fail(_ why: String) -> Problem { Problem(argument: argument, reason: why) }
        guard let colon = raw.firstIndex(of: ":") else { return (key, .string(raw)) }
        let tag = raw[..<colon], rest = String(raw[raw.index(after: colon)...])
        switch tag {
        case "int":
            guard let i = Int64(rest) else { throw fail("'\(rest)' is not an integer") }
            return (key, .integer(i))
        case "real":
            guard let r = Double(rest) else { throw fail("'\(rest)' is not a number") }
            return (key, .real(r))
        case "bool":
            guard let b = Bool(rest) else { throw fail("'\(rest)' is not true or false") }
            return (key, .bool(b))
        case "date":
            do throws(ISODate.Problem) { return (key, .date(try ISODate.parse(rest))) } catch { throw fail(error.description) }
        case "data":
            guard let d = Data(base64Encoded: rest) else { throw fail("'\(rest)' is not base64") }
            return (key, .data(d))
        case "str":
            return (key, .string(rest))
        default:
            // An untyped value that happens to contain a colon ("https://...", "12:30").
            return (key, .string(raw))
        }
    }
}
