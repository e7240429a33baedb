/// The property wrappers a command declares its arguments with. Each is a class (an
/// `ArgumentSlot`): reflecting a command finds them with a class cast, which costs the runtime
/// no search through the binary's protocol conformances (ArgumentParser's did, for each
/// wrapper type, on every start).

/// `--name value` (or `--name=value`), named after the property.
@propertyWrapper
public final class Option<Value>: ValueSlot<Value>, @unchecked Sendable {
    public var wrappedValue: Value {
        get { parsed }
        set { value = newValue }
    }

    /// Required.
    public init(help: String = "") where Value: ExpressibleByArgument {
        super.init(kind: .option(repeating: false), help: help, mayBeAbsent: false, fallback: nil, defaultText: nil, convert: Convert.last)
    }

    /// With a default, used when the option is absent.
    public init(wrappedValue: Value, help: String = "") where Value: ExpressibleByArgument {
        super.init(
            kind: .option(repeating: false), help: help, mayBeAbsent: true, fallback: wrappedValue, defaultText: "\(wrappedValue)",
            convert: Convert.last)
    }

    /// Optional: nil when absent.
    public init<T: ExpressibleByArgument>(help: String = "") where Value == T? {
        super.init(kind: .option(repeating: false), help: help, mayBeAbsent: true, fallback: nil, defaultText: nil, convert: Convert.optional)
    }

    /// Repeatable: every value given, in order.
    public init<T: ExpressibleByArgument>(wrappedValue: [T], help: String = "") where Value == [T] {
        super.init(
            kind: .option(repeating: true), help: help, mayBeAbsent: true, fallback: wrappedValue.isEmpty ? nil : wrappedValue,
            defaultText: nil, convert: Convert.all)
    }
}

/// `--name`, on or off (off when absent).
@propertyWrapper
public final class Flag: ValueSlot<Bool>, @unchecked Sendable {
    public var wrappedValue: Bool {
        get { parsed }
        set { value = newValue }
    }

    public init(wrappedValue: Bool = false, help: String = "") {
        super.init(kind: .flag, help: help, mayBeAbsent: true, fallback: nil, defaultText: nil) { words in (!words.isEmpty, nil) }
    }
}

/// How a positional takes words: accepted as ArgumentParser's, and read as the default here (a
/// repeating positional takes every remaining positional word; options are still options).
public enum ArgumentParsingStrategy: Sendable {
    case `default`, remaining
}

/// A positional word, in declaration order.
@propertyWrapper
public final class Argument<Value>: ValueSlot<Value>, @unchecked Sendable {
    public var wrappedValue: Value {
        get { parsed }
        set { value = newValue }
    }

    /// Required.
    public init(help: String = "") where Value: ExpressibleByArgument {
        super.init(
            kind: .positional(repeating: false), help: help, mayBeAbsent: false, fallback: nil, defaultText: nil,
            convert: Convert.last)
    }

    /// Optional: nil when absent.
    public init<T: ExpressibleByArgument>(help: String = "") where Value == T? {
        super.init(
            kind: .positional(repeating: false), help: help, mayBeAbsent: true, fallback: nil, defaultText: nil,
            convert: Convert.optional)
    }

    /// One or more.
    public init<T: ExpressibleByArgument>(help: String = "") where Value == [T] {
        super.init(
            kind: .positional(repeating: true), help: help, mayBeAbsent: false, fallback: nil, defaultText: nil,
            convert: Convert.all)
    }

    /// Any number, `wrappedValue` when none.
    public init<T: ExpressibleByArgument>(wrappedValue: [T], parsing: ArgumentParsingStrategy = .default, help: String = "")
    where Value == [T] {
        super.init(
            kind: .positional(repeating: true), help: help, mayBeAbsent: true, fallback: wrappedValue,
            defaultText: nil, convert: Convert.all)
    }
}

/// The arguments of a `ParsableArguments` type shared by several commands, read as the
/// command's own. `Value` is constrained on the initializer, not on the class: the runtime makes
/// `OptionGroup<ClientOptions>` when a command is made, and checks a class's constraints with a
/// walk over all of the binary's conformance records.
@propertyWrapper
public final class OptionGroup<Value>: ArgumentGroup, @unchecked Sendable {
    public var wrappedValue: Value
    private let validateValue: (inout Value) throws -> Void

    public init() where Value: ParsableArguments {
        wrappedValue = Value()
        validateValue = { try $0.validate() }
        super.init()
    }

    override func addArguments(to declared: inout Declared, own: inout [ArgumentSlot]) {
        withUnsafeBytes(of: &wrappedValue) { declared.add(Value.self, at: $0.baseAddress!, own: &own) }
    }
    override func validate() throws { try validateValue(&wrappedValue) }
}

/// What `OptionGroup` is to reflection: its arguments, and its own `validate`. Sendable as
/// `ArgumentSlot` is: its value changes only while parsing.
public class ArgumentGroup: @unchecked Sendable {
    init() {}
    func addArguments(to declared: inout Declared, own: inout [ArgumentSlot]) { fatalError("ArgumentGroup.addArguments is overridden") }
    func validate() throws { fatalError("ArgumentGroup.validate is overridden") }
}

/// Words to values. The last of several words wins for a single value, as in ArgumentParser.
enum Convert {
    static func last<T: ExpressibleByArgument>(_ words: [String]) -> (T?, rejected: String?) {
        guard let word = words.last else { return (nil, nil) }
        guard let value = T(argument: word) else { return (nil, word) }
        return (value, nil)
    }

    static func optional<T: ExpressibleByArgument>(_ words: [String]) -> (T??, rejected: String?) {
        guard let word = words.last else { return (.some(nil), nil) }
        guard let value = T(argument: word) else { return (nil, word) }
        return (.some(value), nil)
    }

    static func all<T: ExpressibleByArgument>(_ words: [String]) -> ([T]?, rejected: String?) {
        var values: [T] = []
        for word in words {
            guard let value = T(argument: word) else { return (nil, word) }
            values.append(value)
        }
        return (values, nil)
    }
}
