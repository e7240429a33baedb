import HandoffCommandLine
import HandoffClient
import Synchronization

/// The control connection of a one-shot command, opened before its command line is parsed
/// (`HandoffClient.OnceConnection`): handoffd admits it on its own threads while the command
/// line is read here, and the request then meets a connection already served instead of
/// waiting behind its admission, 0.3 ms on the test hosts (docs/PERFORMANCE.md, "handoffctl's start").
enum EarlyConnection {
    private static let slot = Mutex<HandoffClient.OnceConnection?>(nil)

    /// Connects if `arguments` (the command first, as `GlobalOptions.movedAfterCommand` leaves
    /// them) name a one-shot command, one that performs a single blocking operation, and ask for
    /// no help. The socket is guessed from the words as the parser will read them; a guess
    /// that turns out wrong costs a connection closed unused (`take` compares the paths).
    static func open(for arguments: [String]) {
        guard oneShot(arguments) != nil, !arguments.contains(where: { $0 == "--help" || $0 == "-h" }) else { return }
        let connection = HandoffClient.OnceConnection(socketPath: ClientOptions.socketPath(option: socketOption(arguments)))
        slot.withLock { $0 = connection }
    }

    /// The connection opened for `socketPath`, once; nil if none was (or it was for another path).
    static func take(for socketPath: String) -> HandoffClient.OnceConnection? {
        let connection = slot.withLock { slot -> HandoffClient.OnceConnection? in
            let taken = slot
            slot = nil
            return taken
        }
        return connection?.socketPath == socketPath ? connection : nil
    }

    /// The command named by the leading words if it is a synchronous leaf (`status`,
    /// `scene show`): those run `ClientOptions.performOnce`, the async ones connect through NIO.
    static func oneShot(_ arguments: [String]) -> (any ParsableCommand.Type)? {
        let path = Handoffctl.commandPath(arguments)
        guard path.count > 1, let command = path.last, command.configuration.subcommands.isEmpty, !command.runsAsynchronously
        else { return nil }
        return command
    }

    /// `--socket P` or `--socket=P`, the last one before `--`.
    static func socketOption(_ arguments: [String]) -> String? {
        var found: String?
        var i = 0
        while i < arguments.count, arguments[i] != "--" {
            if arguments[i] == "--socket", i + 1 < arguments.count {
                found = arguments[i + 1]
                i += 1
            } else if arguments[i].hasPrefix("--socket=") {
                found = String(arguments[i].dropFirst("--socket=".count))
            }
            i += 1
        }
        return found
    }
}
