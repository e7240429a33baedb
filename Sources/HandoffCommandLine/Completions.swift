/// Shell completion scripts and the ToolInfo JSON ArgumentParser's man page plugin reads, made
/// from the same declarations as the parser's: the commands at each path, the options of each.
public enum Completions {
    /// Every command path ("" for the root, "scene show", ...), in tree order.
    static func paths(_ root: any ParsableCommand.Type) -> [(path: String, command: any ParsableCommand.Type)] {
        var out: [(String, any ParsableCommand.Type)] = []
        func walk(_ prefix: String, _ command: any ParsableCommand.Type) {
            out.append((prefix, command))
            for sub in command.configuration.subcommands { walk(prefix.isEmpty ? sub.commandName : prefix + " " + sub.commandName, sub) }
        }
        walk("", root)
        return out
    }

    static func options(_ command: any ParsableCommand.Type) -> [ArgumentSlot] {
        command.configuration.subcommands.isEmpty ? HelpText.declared(command).named : []
    }

    public static func script(for shell: String, root: any ParsableCommand.Type) -> String? {
        switch shell {
        case "bash": bash(root)
        case "zsh": zsh(root)
        case "fish": fish(root)
        default: nil
        }
    }

    /// One `case` arm per command path that has words: "PATH") echo WORDS;;
    private static func cases(_ root: any ParsableCommand.Type, _ words: (any ParsableCommand.Type) -> [String]) -> String {
        paths(root).compactMap { path, command in
            let list = words(command)
            return list.isEmpty ? nil : "        \"\(path)\") echo \"\(list.joined(separator: " "))\";;\n"
        }.joined()
    }

    /// For bash and zsh alike: a command path's subcommands, its options, those taking a value.
    private static func functions(_ root: any ParsableCommand.Type) -> String {
        let name = root.commandName
        return """
            __\(name)_subcommands() {
                case "$1" in
            \(cases(root) { $0.configuration.subcommands.map { $0.commandName } })    esac
            }
            __\(name)_options() {
                case "$1" in
            \(cases(root) { options($0).map { "--" + $0.name } + ["-h", "--help"] })    esac
            }
            __\(name)_valued() {
                case "$1" in
            \(cases(root) { options($0).filter(\.takesValue).map { "--" + $0.name } })    esac
            }
            """
    }

    static func bash(_ root: any ParsableCommand.Type) -> String {
        let name = root.commandName
        return """
            #!/bin/bash
            # \(name) completion, made by `\(name) --generate-completion-script bash`.
            \(functions(root))
            _\(name)() {
                local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} path="" i w
                for ((i = 1; i < COMP_CWORD; i++)); do
                    w=${COMP_WORDS[i]}
                    if [[ " $(__\(name)_subcommands "$path") " == *" $w "* ]]; then path=${path:+$path }$w; fi
                done
                if [[ " $(__\(name)_valued "$path") " == *" $prev "* ]]; then
                    COMPREPLY=($(compgen -f -- "$cur"))
                    return
                fi
                COMPREPLY=($(compgen -W "$(__\(name)_subcommands "$path") $(__\(name)_options "$path")" -- "$cur"))
            }
            complete -F _\(name) \(name)

            """
    }

    static func zsh(_ root: any ParsableCommand.Type) -> String {
        let name = root.commandName
        return """
            #compdef \(name)
            # \(name) completion, made by `\(name) --generate-completion-script zsh`.
            \(functions(root))
            _\(name)() {
                local cmdpath="" i w
                for (( i = 2; i < CURRENT; i++ )); do
                    w=${words[i]}
                    if [[ " $(__\(name)_subcommands "$cmdpath") " == *" $w "* ]]; then cmdpath=${cmdpath:+$cmdpath }$w; fi
                done
                if [[ " $(__\(name)_valued "$cmdpath") " == *" ${words[CURRENT-1]} "* ]]; then
                    _files
                    return
                fi
                compadd -- ${=$(__\(name)_subcommands "$cmdpath")} ${=$(__\(name)_options "$cmdpath")}
            }
            _\(name) "$@"

            """
    }

    static func fish(_ root: any ParsableCommand.Type) -> String {
        let name = root.commandName
        var out = """
            # \(name) completion, made by `\(name) --generate-completion-script fish`.
            function __\(name)_path
                set -l p ''
                for w in (commandline -opc)[2..-1]
                    if contains -- $w (__\(name)_subcommands $p)
                        set p (string trim -- "$p $w")
                    end
                end
                echo $p
            end
            function __\(name)_subcommands
                switch "$argv[1]"

            """
        for (path, command) in paths(root) where !command.configuration.subcommands.isEmpty {
            out += "        case '\(path)'\n"
            out += "            printf '%s\\n' \(command.configuration.subcommands.map { $0.commandName }.joined(separator: " "))\n"
        }
        out += "    end\nend\ncomplete -c \(name) -f\n"
        for (path, command) in paths(root) {
            let here = "-n 'test \"$(__\(name)_path)\" = \"\(path)\"'"
            for sub in command.configuration.subcommands {
                out += "complete -c \(name) \(here) -a \(sub.commandName) -d \(quoted(sub.configuration.abstract))\n"
            }
            for slot in options(command) {
                out += "complete -c \(name) \(here) -l \(slot.name)\(slot.takesValue ? " -r -F" : "") -d \(quoted(slot.help))\n"
            }
        }
        return out
    }

    /// A fish single-quoted string.
    private static func quoted(_ s: String) -> String {
        "'" + s.replacingOccurrences("\\", "\\\\").replacingOccurrences("'", "\\'") + "'"
    }
}

extension String {
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
