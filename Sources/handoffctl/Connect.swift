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
        abstract: "Close the sessions with a paired machine (they open again by themselves: it may dial back at once)."
    )
    @OptionGroup var options: ClientOptions
    @Argument(help: "The paired machine: its name or fingerprint.") var peer: String

    func run() throws {
        // The line says what `peers` will show next: the sessions come back by themselves.
        try options.run(DisconnectRequest(peer: peer)) { _ in
            print(
                "The sessions with \(peer.terminalSafe) are closed. Paired machines connect again by themselves: "
                    + "\(peer.terminalSafe) may dial back at once; this machine dials it after its backoff")
        }
    }
}
