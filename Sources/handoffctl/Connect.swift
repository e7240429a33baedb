import HandoffCommandLine
import HandoffControl

/// `connect` and `disconnect`: the two session operations, one subcommand each (troubleshooting).
struct Connect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "connect",
        abstract: "Open a session with a paired machine now (if none is open) and ping it over the session."
    )
    @OptionGroup var options: ClientOptions
    @Argument(help: "The paired machine: its name or fingerprint.") var peer: String

    func run() throws {
        try options.run(ConnectRequest(peer: peer)) { _ in print("A session with \(peer.terminalSafe) is open") }
    }
}

struct Disconnect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disconnect",
        abstract: "Close the sessions with a paired machine (it is dialled again after its backoff)."
    )
    @OptionGroup var options: ClientOptions
    @Argument(help: "The paired machine: its name or fingerprint.") var peer: String

    func run() throws {
        try options.run(DisconnectRequest(peer: peer)) { _ in print("The sessions with \(peer.terminalSafe) are closed") }
    }
}
