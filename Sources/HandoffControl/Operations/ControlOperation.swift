#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// One control operation (docs/CONTROL.md): its name on the wire, its arguments as a typed
/// request, and its typed result. The daemon decodes requests and encodes results with these
/// types; HandoffClient and handoffctl encode requests and decode results with the same ones.
public protocol ControlOperation: Sendable {
    associatedtype Result: ControlResult
    static var name: String { get }
    /// The request's arguments (the fields of the request line besides `id` and `op`).
    var arguments: [String: PropertyListValue] { get }
    /// Decodes a request; each problem names its argument.
    init(request: ControlRequest) throws(ControlError)
    /// How long a client waits for the answer before it reports that handoffd did not answer
    /// (a stopped or wedged daemon would otherwise hang every command and app that asks it).
    /// `answeredPromptly` for what the daemon answers by itself; nil for operations that wait on
    /// a peer, a handler or a person, which handoffd bounds itself (`send` and `continue` by the
    /// peer's and the handlers' limits, pairing by its window).
    var answerWithin: Duration? { get }
}

extension ControlOperation {
    public var answerWithin: Duration? { Self.answeredPromptly }
    /// handoffd answers these from its own state (a SQLite write at most): 30 s is a daemon that
    /// does not run, not one that is busy.
    public static var answeredPromptly: Duration { .seconds(30) }
}

/// What an operation answers, as the `result` of its answer line.
public protocol ControlResult: Sendable {
    /// nil for operations that answer with `{"ok": true}` alone.
    var propertyList: PropertyListValue? { get }
    init(propertyList: PropertyListValue?) throws(ControlError)
}

/// An error a control operation can end with: the code scripts match on, and a message that says
/// what happened and what to do. Each component's errors conform; the control socket answers with
/// them as they are.
public protocol ControlFailure: Error, Sendable {
    var code: FailureCode { get }
    var message: String { get }
}

extension ControlError: ControlFailure {
    public var message: String { description }

    /// Any error as a control error: its own code and message if it has them.
    public init(_ error: any Error) {
        switch error {
        case let e as ControlError: self = e
        case let e as any ControlFailure: self = .failed(code: e.code, message: e.message)
        default: self = .failed(code: .failed, message: "\(error)")
        }
    }
}

/// The answer of operations that return nothing but success.
public struct Done: ControlResult, Equatable {
    public init() {}
    public var propertyList: PropertyListValue? { nil }
    public init(propertyList: PropertyListValue?) throws(ControlError) {}
}

/// A list of results, as an array. `Item` is constrained on the conformance, not on the type: a
/// client that receives `Listing<ActivityInfo>` makes that type at run time, and the runtime
/// checks a type's constraints with a walk over all of the binary's conformance records (one of
/// the two walks `handoffctl activities` made).
public struct Listing<Item> {
    public var items: [Item]
    public init(_ items: [Item]) { self.items = items }
}

extension Listing: Sendable where Item: Sendable {}

extension Listing: ControlResult where Item: ControlItem {
    public var propertyList: PropertyListValue? { .array(items.map(\.object)) }
    public init(propertyList: PropertyListValue?) throws(ControlError) {
        guard case .array(let values)? = propertyList else { throw .badArgument(name: "(result)", reason: "expected an array") }
        items = try values.map { (v: PropertyListValue) throws(ControlError) -> Item in try Item(object: v) }
    }
}

/// One item of a listing, or a result that is always an object.
public protocol ControlItem: Sendable {
    var object: PropertyListValue { get }
    init(object: PropertyListValue) throws(ControlError)
}

/// A result that is one object.
public protocol ControlObject: ControlResult, ControlItem {}

extension ControlObject {
    public var propertyList: PropertyListValue? { object }
    public init(propertyList: PropertyListValue?) throws(ControlError) {
        guard let value = propertyList else { throw .badArgument(name: "(result)", reason: "missing") }
        try self.init(object: value)
    }
}

/// Reads the fields of a result or argument object; every problem names the field.
public struct Fields: Sendable {
    public let values: [String: PropertyListValue]

    public init(_ value: PropertyListValue) throws(ControlError) {
        guard let d = value.dictionaryValue else { throw .badArgument(name: "(object)", reason: "expected an object") }
        values = d
    }

    public init(values: [String: PropertyListValue]) { self.values = values }

    private func wrong(_ key: String, _ expected: String) -> ControlError { .badArgument(name: key, reason: "must be \(expected)") }

    public func string(_ key: String) throws(ControlError) -> String {
        guard let v = values[key] else { throw .badArgument(name: key, reason: "missing") }
        guard let s = v.stringValue else { throw wrong(key, "a string") }
        return s
    }

    public func optionalString(_ key: String) throws(ControlError) -> String? { values[key] == nil ? nil : try string(key) }

    public func integer(_ key: String) throws(ControlError) -> Int64 {
        guard let v = values[key] else { throw .badArgument(name: key, reason: "missing") }
        guard let i = v.integerValue else { throw wrong(key, "an integer") }
        return i
    }

    public func optionalInteger(_ key: String) throws(ControlError) -> Int64? { values[key] == nil ? nil : try integer(key) }

    public func bool(_ key: String) throws(ControlError) -> Bool {
        guard let v = values[key] else { throw .badArgument(name: key, reason: "missing") }
        guard let b = v.boolValue else { throw wrong(key, "true or false") }
        return b
    }

    public func optionalBool(_ key: String) throws(ControlError) -> Bool? { values[key] == nil ? nil : try bool(key) }

    public func date(_ key: String) throws(ControlError) -> Date {
        guard let v = values[key] else { throw .badArgument(name: key, reason: "missing") }
        guard let d = v.dateValue else { throw wrong(key, "a date") }
        return d
    }

    public func optionalDate(_ key: String) throws(ControlError) -> Date? { values[key] == nil ? nil : try date(key) }

    public func uuid(_ key: String) throws(ControlError) -> UUID {
        guard let u = UUID(canonical: try string(key)) else { throw wrong(key, "a UUID in canonical form (36 characters, upper-case hex)") }
        return u
    }

    public func optionalUUID(_ key: String) throws(ControlError) -> UUID? { values[key] == nil ? nil : try uuid(key) }

    public func array(_ key: String) throws(ControlError) -> [PropertyListValue] {
        guard let v = values[key] else { throw .badArgument(name: key, reason: "missing") }
        guard let a = v.arrayValue else { throw wrong(key, "an array") }
        return a
    }

    public func strings(_ key: String) throws(ControlError) -> [String] {
        guard let v = values[key] else { return [] }
        guard let a = v.arrayValue else { throw wrong(key, "an array of strings") }
        return try a.map { (item: PropertyListValue) throws(ControlError) -> String in
            guard let s = item.stringValue else { throw wrong(key, "an array of strings") }
            return s
        }
    }

    public func activity(_ key: String) throws(ControlError) -> UserActivity {
        guard let v = values[key] else { throw .badArgument(name: key, reason: "missing") }
        do throws(CodecError) { return try UserActivity(propertyList: v) } catch {
            throw .badArgument(name: key, reason: error.description)
        }
    }
}

/// Builds an object's fields, leaving out the optional ones that are nil.
public struct FieldWriter {
    public private(set) var values: [String: PropertyListValue] = [:]
    public init() {}

    public subscript(_ key: String) -> PropertyListValue? {
        get { values[key] }
        set { values[key] = newValue }
    }

    public mutating func set(_ key: String, _ s: String?) { if let s { values[key] = .string(s) } }
    public mutating func set(_ key: String, _ i: Int64?) { if let i { values[key] = .integer(i) } }
    public mutating func set(_ key: String, _ b: Bool?) { if let b { values[key] = .bool(b) } }
    public mutating func set(_ key: String, _ d: Date?) { if let d { values[key] = .date(d) } }
    public mutating func set(_ key: String, _ u: UUID?) { if let u { values[key] = .string(u.canonicalString) } }

    public var object: PropertyListValue { .dictionary(values) }
}

extension ControlRequest {
    /// The request's arguments as fields.
    public var fields: Fields { Fields(values: arguments) }

    /// A request for an operation, as HandoffClient sends it.
    public init<Op: ControlOperation>(id: Int64?, _ operation: Op) {
        self.init(id: id, op: Op.name, arguments: operation.arguments)
    }
}
