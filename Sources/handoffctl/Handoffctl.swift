import ArgumentParser

/// `handoffctl`: drives the local handoffd over its control socket.
@main
struct Handoffctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handoffctl",
        abstract: "Control handoffd: peers, pairing, activities, continuation, scenes and the library.",
        discussion: """
            Every command talks to the local handoffd over its control socket \
            (/run/handoffd/control.sock, or --socket, or $HANDOFF_SOCKET) and accepts --json.

            Exit status:
              0   success
              1   handoffd refused the request (the message says why and what to do)
              2   a continuation or push reached the other machine and failed there
              3   handoffd is not running, or this user may not use its socket
              64  wrong usage (an unknown option, a missing argument)
            """,
        subcommands: [
            Status.self, Peers.self, Pair.self, Unpair.self, Trust.self, Activities.self, Publish.self, Resign.self,
            Invalidate.self, Continue.self, Send.self, Handle.self, Scenes.self, SceneCommand.self, LibraryCommand.self, Watch.self,
        ])
}
