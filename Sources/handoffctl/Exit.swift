import HandoffCommandLine
import HandoffCore

#if canImport(Glibc)
    import Glibc
#endif

extension Handoffctl {
    /// Ends handoffctl: what the parser asked to print (help, a usage error, a completion
    /// script), a command's exit status, or an error's message (exit 1).
    static func exit(withError error: (any Error)? = nil) -> Never {
        switch error {
        case nil:
            Glibc.exit(0)
        case CommandLineError.help(let path)?:
            StandardStreams.output(HelpText.help(path))
            Glibc.exit(0)
        case CommandLineError.helpRequested?:
            StandardStreams.output(HelpText.help(Invocation.current))
            Glibc.exit(0)
        case CommandLineError.usage(let path, let message, let argumentHelp)?:
            StandardStreams.error(HelpText.usageError(path, message: message, argumentHelp: argumentHelp))
            Glibc.exit(ExitStatus.usage)
        case CommandLineError.completionScript(let shell)?:
            guard let script = Completions.script(for: shell, root: Handoffctl.self) else {
                StandardStreams.error("Error: no completion script for '\(shell)'; say bash, zsh or fish\n")
                Glibc.exit(ExitStatus.usage)
            }
            StandardStreams.output(script)
            Glibc.exit(0)
        case CommandLineError.version(let text)?:
            StandardStreams.output(text + "\n")
            Glibc.exit(0)
        case CommandLineError.dumpHelp?:
            StandardStreams.output(ToolInfo.json(Handoffctl.self) + "\n")
            Glibc.exit(0)
        case let code as ExitCode:
            Glibc.exit(code.rawValue)
        case let invalid as ValidationError:
            StandardStreams.error(HelpText.usageError(Invocation.current, message: invalid.message, argumentHelp: nil))
            Glibc.exit(ExitStatus.usage)
        case let error?:
            StandardStreams.error("Error: \(error)\n")
            Glibc.exit(1)
        }
    }
}
