/// `--experimental-dump-help`: the command tree as ArgumentParser's ToolInfoV0 JSON, which its
/// `generate-manual` plugin turns into the man page (scripts/install.sh).
public enum ToolInfo {
    public static func json(_ root: any ParsableCommand.Type) -> String {
        "{\"serializationVersion\":0,\"command\":" + command(root, supers: []) + "}"
    }

    static func command(_ command: any ParsableCommand.Type, supers: [String]) -> String {
        let configuration = command.configuration
        var fields = ["\"commandName\":\(string(command.commandName))", "\"shouldDisplay\":true"]
        if !supers.isEmpty { fields.append("\"superCommands\":[" + supers.map(string).joined(separator: ",") + "]") }
        if !configuration.abstract.isEmpty { fields.append("\"abstract\":\(string(configuration.abstract))") }
        if !configuration.discussion.isEmpty { fields.append("\"discussion\":\(string(configuration.discussion))") }
        if !configuration.subcommands.isEmpty {
            let subs = configuration.subcommands.map { Self.command($0, supers: supers + [command.commandName]) }
            fields.append("\"subcommands\":[" + subs.joined(separator: ",") + "]")
        }
        let slots = configuration.subcommands.isEmpty ? HelpText.declared(command).slots : []
        let arguments = slots.map(argument) + [help]
        fields.append("\"arguments\":[" + arguments.joined(separator: ",") + "]")
        return "{" + fields.joined(separator: ",") + "}"
    }

    static func argument(_ slot: ArgumentSlot) -> String {
        let kind = slot.isPositional ? "positional" : slot.takesValue ? "option" : "flag"
        var fields = [
            "\"kind\":\"\(kind)\"", "\"shouldDisplay\":true", "\"isOptional\":\(slot.mayBeAbsent)", "\"isRepeating\":\(slot.isRepeating)",
            "\"parsingStrategy\":\"default\"", "\"valueName\":\(string(slot.name))"
        ]
        if !slot.help.isEmpty { fields.append("\"abstract\":\(string(slot.help))") }
        if !slot.isPositional {
            let name = "{\"kind\":\"long\",\"name\":\(string(slot.name))}"
            fields += ["\"names\":[\(name)]", "\"preferredName\":\(name)"]
        }
        if let text = slot.defaultText { fields.append("\"defaultValue\":\(string(text))") }
        return "{" + fields.joined(separator: ",") + "}"
    }

    static let help =
        "{\"kind\":\"flag\",\"shouldDisplay\":true,\"isOptional\":true,\"isRepeating\":false,\"parsingStrategy\":\"default\","
        + "\"names\":[{\"kind\":\"short\",\"name\":\"h\"},{\"kind\":\"long\",\"name\":\"help\"}],"
        + "\"preferredName\":{\"kind\":\"long\",\"name\":\"help\"},\"valueName\":\"help\",\"abstract\":\"Show help information.\"}"

    /// A JSON string.
    static func string(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
