@_spi(Reflection) import Swift

/// Reads a command line against the command tree: the words name a path of commands, and the
/// rest fill the leaf command's declared arguments. Only the leaf is reflected.

/// Why parsing did not give a command to run, or what to print instead.
public enum CommandLineError: Error {
    /// `--help`, `-h`, `help <command>`, or a command that only groups others.
    case help(path: [any ParsableCommand.Type])
    /// Wrong usage: the message, and the help of the argument it is about.
    case usage(path: [any ParsableCommand.Type], message: String, argumentHelp: String?)
    /// `--generate-completion-script SHELL`.
    case completionScript(shell: String)
    /// `--experimental-dump-help`: the tree as ArgumentParser's ToolInfo JSON (for its man page plugin).
    case dumpHelp
    /// A command with subcommands only was run.
    case helpRequested
    /// `--version` given to a root command that has one: the text to print.
    case version(String)
}

/// The arguments a command declares, in declaration order, its groups' in their place. Read
/// with the standard library's field walk (`_forEachField`: the names, offsets and types the
/// compiler recorded), not `Mirror`: a Mirror boxes every field and looks up three protocol
/// conformances per type, each a search through all of the binary's conformance records
/// (a third of a millisecond of every start). Wrappers are classes, so a field's type says at
/// once whether it is one.
struct Declared {
    var slots: [ArgumentSlot] = []
    var groups: [ArgumentGroup] = []

    init<T: ParsableArguments>(_ arguments: T) {
        var arguments = arguments
        var own: [ArgumentSlot] = []
        withUnsafeBytes(of: &arguments) { add(T.self, at: $0.baseAddress!, own: &own) }
        // A command's own option shadows a group's of the same name (`pair --timeout` is the
        // pairing's time, not the common answer bound): otherwise the group's, declared first,
        // took the word, and help listed both.
        // An array: a handful of names, and no Set's metadata to make at start.
        let ownNames = own.filter { !$0.isPositional }.map(\.name)
        shadowed = slots.filter { slot in !slot.isPositional && ownNames.contains(slot.name) && !own.contains { $0 === slot } }
        slots.removeAll { slot in shadowed.contains { $0 === slot } }
    }

    /// Group options a command's own of the same name shadows: given their defaults when parsed.
    var shadowed: [ArgumentSlot] = []

    /// The wrappers among the fields of a `type` value stored at `base`; `own` collects those
    /// declared by the command itself (not through a group).
    mutating func add(_ type: Any.Type, at base: UnsafeRawPointer, own: inout [ArgumentSlot]) {
        // A group's slots are collected apart: they are not the command's own.
        var inGroups: [ArgumentSlot] = []
        let walked = _forEachField(of: type, options: _EachFieldOptions(rawValue: 0)) { name, offset, fieldType, _ in
            if fieldType is ArgumentSlot.Type {
                let slot = base.load(fromByteOffset: offset, as: ArgumentSlot.self)
                slot.name = Names.kebab(String(String(cString: name).drop { $0 == "_" }))
                slots.append(slot)
                own.append(slot)
            } else if fieldType is ArgumentGroup.Type {
                let group = base.load(fromByteOffset: offset, as: ArgumentGroup.self)
                groups.append(group)
                group.addArguments(to: &self, own: &inGroups)
            }
            return true
        }
        precondition(walked, "HandoffCommandLine cannot read the fields of \(type): declare arguments in a struct")
    }

    var positionals: [ArgumentSlot] {
        slots.filter {
            if case .positional = $0.kind { return true }
            return false
        }
    }
    var named: [ArgumentSlot] { slots.filter { !$0.isPositional } }
}

extension ArgumentSlot {
    var isPositional: Bool {
        if case .positional = kind { return true }
        return false
    }
    var isRepeating: Bool {
        switch kind {
        case .option(let repeating), .positional(let repeating): repeating
        case .flag: false
        }
    }
    var takesValue: Bool {
        if case .option = kind { return true }
        return false
    }
}

extension ParsableCommand {
    public static var commandName: String { configuration.commandName ?? Names.kebab(String(describing: Self.self)) }

    /// Parses `arguments` (without the program's name) from this command down, validates, and
    /// returns the command to run; otherwise throws `CommandLineError` (or what `validate` threw).
    public static func parseAsRoot(_ arguments: [String]) throws -> any ParsableCommand {
        // As ArgumentParser: after any command, `--generate-completion-script SHELL` (or `=SHELL`).
        let options = arguments.prefix { $0 != "--" }
        if let at = options.firstIndex(where: { $0 == "--generate-completion-script" || $0.hasPrefix("--generate-completion-script=") }) {
            let (_, inline) = Names.split(arguments[at])
            throw CommandLineError.completionScript(shell: inline ?? (at + 1 < arguments.count ? arguments[at + 1] : ""))
        }
        if arguments.first == "--experimental-dump-help" { throw CommandLineError.dumpHelp }
        if arguments.first == "--version", !configuration.version.isEmpty { throw CommandLineError.version(configuration.version) }
        if arguments.first == "help", !configuration.subcommands.contains(where: { $0.commandName == "help" }) {
            throw CommandLineError.help(path: commandPath(Array(arguments.dropFirst())))
        }
        let path = commandPath(arguments)
        let rest = arguments.dropFirst(path.count - 1)
        Invocation.set(path)
        let leaf = path.last!
        guard leaf.configuration.subcommands.isEmpty else {
            guard let word = rest.first else { throw CommandLineError.help(path: path) }
            if word == "--help" || word == "-h" { throw CommandLineError.help(path: path) }
            let names = leaf.configuration.subcommands.map { $0.commandName }
            guard !word.hasPrefix("-") else {
                // An option before any command of a group (`handoffctl scene --json`): the
                // group takes none itself; say which commands do.
                let message =
                    path.count > 1
                    ? "'\(leaf.commandName)' takes a command before '\(word)': \(names.joined(separator: ", "))"
                    : "Unexpected argument '\(word)'"
                throw CommandLineError.usage(path: path, message: message, argumentHelp: nil)
            }
            // A mistyped command is named as one, with the command it most likely meant.
            let meant = CommandSuggestion.nearest(to: word, among: names).map { "; did you mean '\($0)'?" } ?? ""
            throw CommandLineError.usage(path: path, message: "Unknown command '\(word)'\(meant)", argumentHelp: nil)
        }
        return try leaf.parsed(Array(rest), path: path)
    }

    /// This command and the commands the leading `words` name under it, down to the first word
    /// that names none.
    public static func commandPath(_ words: [String]) -> [any ParsableCommand.Type] {
        var path: [any ParsableCommand.Type] = [Self.self]
        for word in words {
            guard let sub = path.last!.configuration.subcommands.first(where: { $0.commandName == word }) else { break }
            path.append(sub)
        }
        return path
    }

    fileprivate static func parsed(_ words: [String], path: [any ParsableCommand.Type]) throws -> any ParsableCommand {
        // Help wins over anything wrong beside it.
        if words.prefix(while: { $0 != "--" }).contains(where: { $0 == "--help" || $0 == "-h" }) { throw CommandLineError.help(path: path) }
        var command = Self()
        let declared = Declared(command)
        func usage(_ message: String, _ slot: ArgumentSlot? = nil) -> CommandLineError {
            .usage(path: path, message: message, argumentHelp: slot.map { "\(HelpText.label($0))  \($0.help)" })
        }
        // The words each slot was given, by its place in `declared.slots`: an array, not a
        // dictionary keyed by the slot, whose key type's Hashable conformance the runtime would
        // look up with a walk over every conformance record in the binary.
        var given = [[String]](repeating: [], count: declared.slots.count)
        func place(_ slot: ArgumentSlot) -> Int { declared.slots.firstIndex { $0 === slot }! }
        var positional: [String] = []
        var i = 0
        var terminated = false
        while i < words.count {
            let word = words[i]
            i += 1
            if terminated || !word.hasPrefix("-") || word == "-" {
                positional.append(word)
                continue
            }
            if word == "--" {
                terminated = true
                continue
            }
            let (name, inline) = Names.split(word)
            guard name.hasPrefix("--"), let slot = declared.named.first(where: { "--" + $0.name == name }) else {
                throw usage("Unknown option '\(name)'")
            }
            if slot.takesValue {
                if let inline {
                    given[place(slot)].append(inline)
                } else if i < words.count, !words[i].hasPrefix("-") || words[i] == "-" {
                    given[place(slot)].append(words[i])
                    i += 1
                } else {
                    throw usage("Missing value for '\(HelpText.label(slot))'", slot)
                }
            } else {
                if let inline { throw usage("The option '--\(slot.name)' does not take any value, but '\(inline)' was specified.") }
                given[place(slot)] = ["true"]
            }
        }
        // Positionals in declaration order; a repeating one takes the rest.
        for slot in declared.positionals where !positional.isEmpty {
            if slot.isRepeating {
                given[place(slot)] = positional
                positional = []
            } else {
                given[place(slot)] = [positional.removeFirst()]
            }
        }
        if let extra = positional.first { throw usage("Unexpected argument '\(extra)'") }
        for slot in declared.shadowed { _ = slot.take([]) }
        for index in declared.slots.indices {
            let slot = declared.slots[index], taken = given[index]
            if taken.isEmpty, !slot.mayBeAbsent { throw usage("Missing expected argument '\(HelpText.synopsis(slot, bare: true))'", slot) }
            if !slot.take(taken) { throw usage("The value '\(slot.rejected ?? "")' is invalid for '\(HelpText.label(slot))'", slot) }
        }
        do {
            for group in declared.groups { try group.validate() }
            try command.validate()
        } catch let error as ValidationError {
            throw usage(error.message)
        }
        return command
    }
}

/// The path of the command being run: a `ValidationError` thrown by its `run` is reported with
/// its usage, as one thrown by `validate`.
public enum Invocation {
    nonisolated(unsafe) private static var path: [any ParsableCommand.Type] = []
    static func set(_ p: [any ParsableCommand.Type]) { path = p }
    public static var current: [any ParsableCommand.Type] { path }
}

enum Names {
    /// `requiredKey` -> `required-key`, `activityURL` -> `activity-url`.
    static func kebab(_ name: String) -> String {
        let characters = Array(name)
        var out = ""
        for (i, c) in characters.enumerated() {
            if c.isUppercase, i > 0 {
                let previous = characters[i - 1]
                let nextIsLower = i + 1 < characters.count && characters[i + 1].isLowercase
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLower) { out.append("-") }
            }
            out += c.lowercased()
        }
        return out
    }

    /// `--name=value` -> ("--name", "value").
    static func split(_ word: String) -> (String, String?) {
        guard let equals = word.firstIndex(of: "=") else { return (word, nil) }
        return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }
}
