import ServiceLifecycle

/// The first service to hear of a shutdown (the last one started): it says goodbye to every
/// peer before the others stop, so that a paired machine shows this one absent within
/// milliseconds of SIGTERM, not after the control socket, the bus and every component have
/// wound down. The sessions close later, with Peers.
public struct Farewell: Service {
    let daemon: Daemon

    public init(daemon: Daemon) { self.daemon = daemon }

    public func run() async throws {
        try? await gracefulShutdown()
        // The streams' resets first, queued on each session before its goodbye: a peer stops
        // reading a session at its goodbye, and a stream whose reset came after it waited a
        // minute for a resume that a stopping daemon never makes.
        daemon.continuations.streams.closeAll()
        await daemon.peers.links.sayGoodbye()
    }
}
