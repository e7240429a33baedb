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
        await daemon.peers.links.sayGoodbye()
    }
}
