#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// Why a control request was refused. The connection stays open; the answer names the problem.
public enum ControlError: Error, Sendable, Equatable, CustomStringConvertible {
    case lineTooLong(limit: Int)
    case notJSON(String)
    case notAnObject
    case missingOp
    case unknownOp(String)
    case badArgument(name: String, reason: String)
    case failed(code: FailureCode, message: String)

    public var code: FailureCode {
        switch self {
        case .lineTooLong: .lineTooLong
        case .notJSON: .notJson
        case .notAnObject: .notAnObject
        case .missingOp: .missingOp
        case .unknownOp: .unknownOp
        case .badArgument: .badArgument
        case .failed(let code, _): code
        }
    }

    public var description: String {
        switch self {
        case .lineTooLong(let limit): "the request line is longer than \(limit) bytes"
        case .notJSON(let why): "the request is not JSON (\(why)); send one JSON object per line"
        case .notAnObject: "the request must be a JSON object with an \"op\""
        case .missingOp: "the request has no \"op\""
        case .unknownOp(let op): "unknown op '\(op)'; see docs/CONTROL.md"
        case .badArgument(let name, let reason): "argument '\(name)': \(reason)"
        case .failed(_, let message): message
        }
    }
}

/// One request line: `{"id": 1, "op": "publish", ...arguments}`.
public struct ControlRequest: Sendable, Equatable {
    public let id: Int64?
    public let op: String
    public let arguments: [String: PropertyListValue]

    public init(id: Int64?, op: String, arguments: [String: PropertyListValue] = [:]) {
        self.id = id
        self.op = op
        self.arguments = arguments
    }

    /// Parses a line; the property-list limits bound what a client can make us build.
    public init(line: [UInt8], limits: CodecLimits = .default) throws(ControlError) {
        let value: PropertyListValue
        do throws(JSONValue.Problem) { value = try JSONValue.parse(line, limits: limits) } catch {
            if case .notJSON(let why) = error { throw .notJSON(why) }
            throw .badArgument(name: "(request)", reason: error.description)
        }
        guard var fields = value.dictionaryValue else { throw .notAnObject }
        guard let op = fields.removeValue(forKey: "op")?.stringValue else { throw .missingOp }
        let idValue = fields.removeValue(forKey: "id")
        if let idValue, idValue.integerValue == nil { throw .badArgument(name: "id", reason: "must be an integer") }
        self.init(id: idValue?.integerValue, op: op, arguments: fields)
    }

    public var line: [UInt8] {
        var d = arguments
        d["op"] = .string(op)
        if let id { d["id"] = .integer(id) }
        return JSONWriter.line(.dictionary(d))
    }

    // Typed argument access, each failure naming the argument (one implementation: `Fields`).
    public func string(_ name: String) throws(ControlError) -> String { try fields.string(name) }

    public func optionalString(_ name: String) throws(ControlError) -> String? { try fields.optionalString(name) }

    public func uuid(_ name: String) throws(ControlError) -> UUID { try fields.uuid(name) }

    public func activity(_ name: String = "activity") throws(ControlError) -> UserActivity { try fields.activity(name) }
}

/// Response and event lines.
public enum ControlLine {
    public static func ok(id: Int64?, result: PropertyListValue? = nil) -> [UInt8] {
        var d: [String: PropertyListValue] = ["ok": true]
        if let id { d["id"] = .integer(id) }
        if let result { d["result"] = result }
        return JSONWriter.line(.dictionary(d))
    }

    public static func error(id: Int64?, _ error: ControlError) -> [UInt8] {
        var d: [String: PropertyListValue] = ["ok": false, "error": ["code": .string(error.code.rawValue), "message": .string(error.description)]]
        if let id { d["id"] = .integer(id) }
        return JSONWriter.line(.dictionary(d))
    }

    public static func event(_ name: String, _ fields: [String: PropertyListValue] = [:]) -> [UInt8] {
        var d = fields
        d["event"] = .string(name)
        return JSONWriter.line(.dictionary(d))
    }

    /// An event that carries an activity under `activity`, written from its fields.
    public static func event(_ name: String, _ fields: [String: PropertyListValue], activity: UserActivity) -> [UInt8] {
        var d = fields
        d["event"] = .string(name)
        return JSONWriter.line(d, activity: activity, under: "activity")
    }
}

extension UserActivity {
    /// The activity as one line of JSON text, the mapping of docs/CONTROL.md (exec handlers' stdin):
    /// every value, infinities included, has a form.
    public var jsonText: [UInt8] { JSONWriter.encode(propertyList) }
}
