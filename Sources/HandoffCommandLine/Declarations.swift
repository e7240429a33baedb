/// What a command declares: the part of swift-argument-parser's API handoffctl uses, read with
/// one reflection of the command that runs instead of ArgumentParser's walk over the whole tree
/// (docs/PERFORMANCE.md, "handoffctl's start": that walk was half of every command's start).
/// The names are ArgumentParser's so a command reads the same; the behaviour is the subset we
/// use: long options named after their properties, flags, positionals, option groups.

/// A value an option or a positional takes from one word of the command line.
public protocol ExpressibleByArgument: SendableMetatype {
    init?(argument: String)
}

extension String: ExpressibleByArgument {
    public init?(argument: String) { self = argument }
}

extension Int: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument, radix: 10) }
}

extension Double: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}

/// A set of options and arguments: a command, or a group several commands share.
public protocol ParsableArguments: SendableMetatype {
    init()
    /// Checks the parsed values together; a `ValidationError` is reported as wrong usage.
    mutating func validate() throws
}

extension ParsableArguments {
    public mutating func validate() throws {}
}

/// A command: its place in the tree and what it does.
public protocol ParsableCommand: ParsableArguments {
    static var configuration: CommandConfiguration { get }
    /// True for an `AsyncParsableCommand`. Asked instead of a cast: a cast to a protocol is the
    /// runtime's first lookup of that conformance, a walk over all of the binary's conformance
    /// records (4,300 in handoffctl), and a one-shot command would pay it to learn "no".
    static var runsAsynchronously: Bool { get }
    mutating func run() throws
}

extension ParsableCommand {
    public static var configuration: CommandConfiguration { CommandConfiguration() }
    public static var runsAsynchronously: Bool { false }
    /// A command with subcommands only: running it shows its help.
    public mutating func run() throws { throw CommandLineError.helpRequested }
}

/// A command whose work is asynchronous (it waits on events).
public protocol AsyncParsableCommand: ParsableCommand {
    /// True for a command whose tasks never block (they print and talk to handoffd): its tasks
    /// may then run on the thread of the event loop that reads its connection, and an event is
    /// handled where it was read instead of waking a thread of Swift's pool for it.
    static var tasksOnTheEventLoop: Bool { get }
    mutating func run() async throws
}

extension AsyncParsableCommand {
    public static var runsAsynchronously: Bool { true }
    public static var tasksOnTheEventLoop: Bool { false }
}

public struct CommandConfiguration: Sendable {
    /// Default: the type's name in kebab-case.
    public var commandName: String?
    public var abstract: String
    public var discussion: String
    public var subcommands: [any ParsableCommand.Type]
    /// Printed for `--version` given to the root command (none when empty), as ArgumentParser does.
    public var version: String

    public init(
        commandName: String? = nil, abstract: String = "", discussion: String = "", version: String = "", subcommands: [any ParsableCommand.Type] = []
    ) {
        self.commandName = commandName
        self.abstract = abstract
        self.discussion = discussion
        self.version = version
        self.subcommands = subcommands
    }
}

/// Wrong usage found after parsing (`validate`, or `run` before any work): exit 64 with the usage.
public struct ValidationError: Error, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Ends the command with this status and nothing more printed.
public struct ExitCode: Error, Equatable, CustomStringConvertible {
    public let rawValue: Int32
    public init(_ code: Int32) { rawValue = code }
    public static let success = ExitCode(0)
    public static let failure = ExitCode(1)
    public static let validationFailure = ExitCode(64)
    public var description: String { "exit status \(rawValue)" }
}

/// How a declared argument is read.
enum ArgumentKind: Equatable {
    case option(repeating: Bool)
    case flag
    case positional(repeating: Bool)
}

/// One declared option, flag or positional: what help and the parser need, and the value once
/// parsed. A class, so the reflected copy of a command and the command itself share it.
/// Written only while the command line is parsed, before the command runs; only read after:
/// a command may be used from any task, as one declared with ArgumentParser's wrappers could.
public class ArgumentSlot: @unchecked Sendable {
    /// The word that was not a valid value, for the error.
    var rejected: String?
    let kind: ArgumentKind
    let help: String
    /// May be left out (optional, defaulted, a flag, or a repeating one with a default).
    let mayBeAbsent: Bool
    /// Shown as "(default: ...)" in help.
    let defaultText: String?
    /// The property's name in kebab-case, set when the command is reflected.
    var name = ""

    init(kind: ArgumentKind, help: String, mayBeAbsent: Bool, defaultText: String?) {
        self.kind = kind
        self.help = help
        self.mayBeAbsent = mayBeAbsent
        self.defaultText = defaultText
    }

    /// Takes the words given (none if absent); false if one is not a valid value.
    func take(_ words: [String]) -> Bool { fatalError("ArgumentSlot.take is overridden") }
}

/// A slot holding a `Value`, converted from the words by `convert`.
public class ValueSlot<Value>: ArgumentSlot, @unchecked Sendable {
    var value: Value?
    let fallback: Value?
    let convert: ([String]) -> (Value?, rejected: String?)

    init(
        kind: ArgumentKind, help: String, mayBeAbsent: Bool, fallback: Value?, defaultText: String?,
        convert: @escaping ([String]) -> (Value?, rejected: String?)
    ) {
        self.fallback = fallback
        self.convert = convert
        super.init(kind: kind, help: help, mayBeAbsent: mayBeAbsent, defaultText: defaultText)
    }

    override func take(_ words: [String]) -> Bool {
        if words.isEmpty, let fallback {
            value = fallback
            return true
        }
        let (converted, bad) = convert(words)
        rejected = bad
        value = converted
        return bad == nil
    }

    var parsed: Value {
        guard let value else { fatalError("--\(name) was read before the command line was parsed") }
        return value
    }
}
