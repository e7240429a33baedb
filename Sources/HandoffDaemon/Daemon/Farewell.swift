import ServiceLifecycle
import Synchronization

/// The first service to hear of a shutdown (the last one started): it says goodbye to every
/// peer before the others stop, so that a paired machine shows this one absent within
/// milliseconds of SIGTERM, not after the control socket, the bus and every component have
/// wound down. handoffd's stop signals are read on its event loop and start the goodbye there
/// (`start()`), before the service group's shutdown reaches this service.
public final class Farewell: Service, Sendable {
    let daemon: Daemon
    /// The goodbye under way or said: one, whoever asks first.
    private let goodbye = Mutex<Task<Void, Never>?>(nil)

    public init(daemon: Daemon) { self.daemon = daemon }

    public func run() async throws {
        try? await gracefulShutdown()
        await start().value
    }

    /// Starts the goodbye, once; every caller gets the same task.
    @discardableResult
    public func start() -> Task<Void, Never> {
        goodbye.withLock { task in
            if let task { return task }
            let daemon = daemon
            let made = Task {
                // The streams' resets first, queued on each session before its goodbye: a peer
                // stops reading a session at its goodbye, and a stream whose reset came after it
                // waited a minute for a resume that a stopping daemon never makes.
                daemon.continuations.streams.closeAll()
                await daemon.peers.links.sayGoodbye()
            }
            task = made
            return made
        }
    }
}
