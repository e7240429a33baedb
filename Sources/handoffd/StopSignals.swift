import CHandoffShims
import HandoffAsync
import HandoffDaemon
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#endif

/// SIGTERM and SIGINT, read from a signalfd on the daemon's event loop. The first one starts the
/// goodbye to the peers right there (`Farewell.start`), then ends this service, which shuts the
/// group down gracefully.
///
/// Why not ServiceLifecycle's own signal handling: it reads signals through a Dispatch source,
/// so a SIGTERM woke Dispatch's manager thread, then one of its workers, which woke the event
/// loop, which ran the group's shutdown until it reached `Farewell`: about 0.8 ms from the signal
/// to the goodbye's write (perf, a traced stop), while a peer waits to show this machine absent.
/// Read here, the signal wakes the loop itself, and the goodbye is its next job.
struct StopSignals: Service {
    let descriptor: Int32
    let farewell: Farewell
    let logger: Logger

    /// Blocks SIGTERM and SIGINT and returns the descriptor to read them from, or nil (then
    /// ServiceLifecycle handles them, as before). Called first thing in `main`: every thread the
    /// process starts later inherits the mask.
    static func take() -> Int32? {
        let fd = handoff_stop_signals_fd()
        return fd >= 0 ? fd : nil
    }

    func run() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let stopped = Nap()
        let farewell = farewell, logger = logger
        let channel = try await NIOPipeBootstrap(group: group)
            // A signalfd read needs room for a whole signalfd_siginfo (128 bytes); the adaptive
            // allocator would shrink the buffer below that.
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 1024))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        SignalReader { signal in
                            farewell.start()
                            logger.notice("stopping", metadata: ["signal": "\(signal == SIGINT ? "SIGINT" : "SIGTERM")"])
                            stopped.end()
                        })
                }
            }
            .takingOwnershipOfDescriptor(input: descriptor).get()
        // A shutdown from elsewhere (a service that failed) ends this service too.
        await withGracefulShutdownHandler {
            while !stopped.hasEnded && !Task.isCancelled { await stopped.sleep(for: .seconds(3600)) }
        } onGracefulShutdown: {
            stopped.end()
        }
        // The signals stay blocked: one that comes during the shutdown is not read, and changes
        // nothing (systemd ends a stop that hangs with SIGKILL).
        try? await channel.close()
    }
}

/// Calls its closure at each read of the signalfd with the first signal read (a read holds one
/// or more `signalfd_siginfo`, each starting with its signal's number).
private final class SignalReader: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let received: @Sendable (Int32) -> Void

    init(_ received: @escaping @Sendable (Int32) -> Void) { self.received = received }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        received(Int32(bytes.getInteger(at: bytes.readerIndex, endianness: .little, as: UInt32.self) ?? UInt32(SIGTERM)))
    }
}
