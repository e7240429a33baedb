/// Help and usage as ArgumentParser lays them out (80 columns), so `--help`, the usage errors
/// and the man page read as they always have.
public enum HelpText {
    static let width = 80
    /// Where an entry's text starts.
    static let column = 26

    /// `--to <to>`, `--json`, `<activity>`.
    static func label(_ slot: ArgumentSlot) -> String {
        switch slot.kind {
        case .option: "--\(slot.name) <\(slot.name)>"
        case .flag: "--\(slot.name)"
        case .positional: "<\(slot.name)>"
        }
    }

    /// As in the usage line: `[--title <title>]`, `[--info <info> ...]`, `<ids> ...`.
    static func synopsis(_ slot: ArgumentSlot, bare: Bool = false) -> String {
        var s = label(slot)
        if slot.isRepeating { s += " ..." }
        if slot.mayBeAbsent, !bare { s = "[\(s)]" }
        return s
    }

    static func toolName(_ path: [any ParsableCommand.Type]) -> String { path.map { $0.commandName }.joining(" ") }

    /// The usage line, without "USAGE: ": past twelve arguments only the required ones and the
    /// positionals are named, as ArgumentParser does.
    public static func usage(_ path: [any ParsableCommand.Type]) -> String {
        let tool = toolName(path)
        let leaf = path.last!
        guard leaf.configuration.subcommands.isEmpty else { return "\(tool) <subcommand>" }
        var slots = declared(leaf).slots
        switch slots.count {
        case 0: return tool
        case 13...:
            slots = slots.filter { $0.isPositional || !$0.mayBeAbsent }
            if (1...12).contains(slots.count) { return "\(tool) [<options>] " + slots.map { synopsis($0) }.joining(" ") }
            return "\(tool) <options>"
        default: return "\(tool) " + slots.map { synopsis($0) }.joining(" ")
        }
    }

    /// `--help` of the command at the end of `path`.
    public static func help(_ path: [any ParsableCommand.Type]) -> String {
        let leaf = path.last!
        let configuration = leaf.configuration
        var out = ""
        if !configuration.abstract.isEmpty { out += wrap("OVERVIEW: " + configuration.abstract) + "\n\n" }
        if !configuration.discussion.isEmpty { out += wrap(configuration.discussion) + "\n\n" }
        out += "USAGE: \(usage(path))\n\n"
        let slots = configuration.subcommands.isEmpty ? declared(leaf).slots : []
        let positionals = slots.filter(\.isPositional)
        if !positionals.isEmpty {
            out += "ARGUMENTS:\n" + positionals.map { entry(label($0), text: $0.help) }.joining("") + "\n"
        }
        out += "OPTIONS:\n"
        for slot in slots where !slot.isPositional {
            out += entry(label(slot), text: slot.help + (slot.defaultText.map { " (default: \($0))" } ?? ""))
        }
        if path.count == 1, !configuration.version.isEmpty { out += entry("--version", text: "Show the version.") }
        out += entry("-h, --help", text: "Show help information.") + "\n"
        if !configuration.subcommands.isEmpty {
            out += "SUBCOMMANDS:\n"
            for sub in configuration.subcommands { out += entry(sub.commandName, text: sub.configuration.abstract) }
            let parents = path.dropFirst().map { $0.commandName + " " }.joining("")
            out += "\n  See '\(path[0].commandName) help \(parents)<subcommand>' for detailed help.\n"
        }
        return out
    }

    /// What a usage error prints (to standard error).
    public static func usageError(_ path: [any ParsableCommand.Type], message: String, argumentHelp: String?) -> String {
        var out = "Error: \(message)\n"
        if let argumentHelp { out += "Help:  \(argumentHelp)\n" }
        out += "Usage: \(usage(path))\n"
        out += "  See '\(toolName(path)) --help' for more information.\n"
        return out
    }

    static func declared(_ command: any ParsableCommand.Type) -> Declared {
        func declared<T: ParsableCommand>(_ type: T.Type) -> Declared { Declared(T()) }
        return declared(command)
    }

    /// A label in two columns, its text wrapped beside it (or below it, if the label is long).
    static func entry(_ label: String, text: String) -> String {
        if text.isEmpty { return "  \(label)\n" }
        let lines = wrapWords(text, width: width - column)
        let pad = String(repeating: " ", count: column)
        var out = "  " + label
        if label.count + 3 > column {
            out += "\n" + pad
        } else {
            out += String(repeating: " ", count: column - 2 - label.count)
        }
        out += lines.joining("\n" + pad)
        return out + "\n"
    }

    /// Each line of `text` wrapped at `width` columns.
    static func wrap(_ text: String, width: Int = width) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.count <= width ? String(line) : wrapWords(String(line), width: width).joining("\n")
        }.joining("\n")
    }

    /// Words filled into lines as ArgumentParser fills them: each word but the text's last is
    /// counted with the space after it, so only the last may reach the final column.
    static func wrapWords(_ text: String, width: Int) -> [String] {
        let words = text.split(separator: " ")
        var lines: [String] = []
        var line = ""
        for (i, word) in words.enumerated() {
            let room = i == words.count - 1 ? width : width - 1
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= room {
                line.append(" ")
                line.append(contentsOf: word)
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        lines.append(line)
        return lines
    }
}

extension [String] {
    /// `joined(separator:)`, written for `[String]` alone: the standard library's is generic over
    /// the collection, and its first call makes the runtime look up a conformance with a walk
    /// over all of the binary's conformance records (two such walks were most of `--help`'s
    /// own work after start-up).
    func joining(_ separator: String) -> String {
        var out = ""
        for (i, part) in enumerated() {
            if i > 0 { out += separator }
            out += part
        }
        return out
    }
}
