import HandoffAsync
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// The floor of a push on SwiftNIO, for Benchmarks/scripts/bench-edges.sh: Benchmarks/scripts/push-relay.c's two relays,
/// with the same arguments, on NIO:
///
///     handoff-push-relay [--direct] a UNIX_PATH IP PORT   (alpha: the pusher's side)
///     handoff-push-relay [--direct] b UNIX_PATH PORT      (beta: the handler's side; prints "ready")
///     handoff-push-relay hops N                          (prints the jobs N actor hops handed the loop)
///
/// By default each read is handed to a task that writes it on through an actor, every task on the
/// event loop (`EventLoopJobs`), as handoffd takes a message from a socket to its actors and out
/// again; `--direct` writes it from the channel handler. Nothing is parsed, sealed or looked up:
/// what any daemon built on NIO (and Swift Concurrency) pays before its own work, beside the C
/// relays' floor, which is the kernel's alone.
@main
enum PushRelay {
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let direct = arguments.first == "--direct"
        if direct { arguments.removeFirst() }
        let usage = "usage: handoff-push-relay [--direct] a UNIX_PATH IP PORT | [--direct] b UNIX_PATH PORT | hops N\n"
        NIOSingletons.groupLoopCountSuggestion = 1
        if !direct { EventLoopJobs.routeEveryTask(name: "handoff-push-relay") }
        do {
            switch (arguments.first, arguments.count) {
            case ("hops", 2):
                guard !direct, let n = Int(arguments[1]), n > 0 else { fail(usage) }
                Hops.count(n)
            case ("a", 4):
                guard let port = Int(arguments[3]) else { fail(usage) }
                try relayA(path: arguments[1], host: arguments[2], port: port, direct: direct)
            case ("b", 3):
                guard let port = Int(arguments[2]) else { fail(usage) }
                try relayB(path: arguments[1], port: port, direct: direct)
                _ = "ready\n".withCString { write(1, $0, 6) }
            default:
                fail(usage)
            }
        } catch {
            fail("handoff-push-relay: \(error)\n")
        }
        // The relays run on the event loop; this thread only waits (the bench ends the process).
        while true { pause() }
    }

    static func fail(_ text: String) -> Never {
        _ = text.withCString { write(2, $0, strlen($0)) }
        exit(2)
    }

    /// Takes the pusher's connection on `path`, then connects to relay b over TCP; nothing is
    /// read from the pusher until that connection is made.
    static func relayA(path: String, host: String, port: Int, direct: Bool) throws {
        unlink(path)
        let group = MultiThreadedEventLoopGroup.singleton
        _ = try ServerBootstrap(group: group)
            .childChannelOption(.autoRead, value: false)
            .childChannelInitializer { pusher in
                let fromPusher = Copier(direct: direct), fromRelay = Copier(direct: direct)
                return pusher.pipeline.addHandler(fromPusher).flatMap {
                    ClientBootstrap(group: group)
                        .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                        .channelInitializer { $0.pipeline.addHandler(fromRelay) }
                        .connect(host: host, port: port)
                }.flatMap { relay in
                    fromPusher.copy(to: relay)
                    fromRelay.copy(to: pusher)
                    return pusher.setOption(.autoRead, value: true)
                }
            }
            .bind(unixDomainSocketPath: path).wait()
    }

    /// Takes relay a's TCP connection on `port` and the handler's on `path`, in either order;
    /// nothing is read from either until both are there.
    static func relayB(path: String, port: Int, direct: Bool) throws {
        unlink(path)
        let group = MultiThreadedEventLoopGroup.singleton
        let pair = Pair(direct: direct)
        _ = try ServerBootstrap(group: group)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(.autoRead, value: false)
            .childChannelInitializer { pair.arrived($0, side: 0) }
            .bind(host: "0.0.0.0", port: port).wait()
        _ = try ServerBootstrap(group: group)
            .childChannelOption(.autoRead, value: false)
            .childChannelInitializer { pair.arrived($0, side: 1) }
            .bind(unixDomainSocketPath: path).wait()
    }
}

/// Relay b's two connections, joined once both have arrived.
final class Pair: Sendable {
    private let channels = NIOLockedValueBox<[Channel?]>([nil, nil])
    private let copiers: [Copier]

    init(direct: Bool) { copiers = [Copier(direct: direct), Copier(direct: direct)] }

    func arrived(_ channel: Channel, side: Int) -> EventLoopFuture<Void> {
        channel.pipeline.addHandler(copiers[side]).map { [self] in
            let both = channels.withLockedValue { c -> (Channel, Channel)? in
                c[side] = channel
                guard let a = c[0], let b = c[1] else { return nil }
                return (a, b)
            }
            guard let (a, b) = both else { return }
            copiers[0].copy(to: b)
            copiers[1].copy(to: a)
            for c in [a, b] { c.setOption(.autoRead, value: true).whenFailure { _ in exit(1) } }
        }
    }
}

/// Copies what its channel reads to another channel: at once (`direct`), or through a task that
/// takes each read from a queue and writes it through an actor. The relay ends when either side
/// closes, as the C relay does. A bench's tool: it holds back nothing (the bench sends a line and
/// waits for it at the other end), where the C relay's blocking write would.
final class Copier: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    private let direct: Bool
    private let target = NIOLockedValueBox<Channel?>(nil)
    private let reads = Reads()

    init(direct: Bool) { self.direct = direct }

    func copy(to channel: Channel) {
        target.withLockedValue { $0 = channel }
        guard !direct else { return }
        let writer = Writer(channel: channel)
        Task { [reads] in
            while true { await writer.write(await reads.next()) }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        if direct {
            target.withLockedValue { $0 }?.writeAndFlush(bytes, promise: nil)
        } else {
            reads.put(bytes)
        }
    }

    func channelInactive(context: ChannelHandlerContext) { exit(0) }
}

/// The writing end of a relay, as the actor a daemon's message passes through.
actor Writer {
    let channel: Channel
    init(channel: Channel) { self.channel = channel }
    func write(_ bytes: ByteBuffer) { channel.writeAndFlush(bytes, promise: nil) }
}

/// Reads waiting for the task that writes them on: a queue with one reader, as handoffd's
/// `ControlLines`. Its wait is inside `withTaskCancellationHandler` as there, though nothing here
/// is cancelled: a bare `withUnsafeContinuation` as `next()`'s body crashed this relay's release
/// build (Swift 6.3.1: the event loop ran a job with no function at the reader's first
/// suspension; the debug build and a checked continuation ran). handoffd's two unsafe
/// continuations (`ControlLines`, `Waiters`) are both inside one.
final class Reads: Sendable {
    private struct State {
        var queued: [ByteBuffer] = []
        var reader: UnsafeContinuation<ByteBuffer, Never>?
    }
    private let state = NIOLockedValueBox(State())

    func put(_ bytes: ByteBuffer) {
        let reader = state.withLockedValue { s -> UnsafeContinuation<ByteBuffer, Never>? in
            if let r = s.reader {
                s.reader = nil
                return r
            }
            s.queued.append(bytes)
            return nil
        }
        reader?.resume(returning: bytes)
    }

    func next() async -> ByteBuffer {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (c: UnsafeContinuation<ByteBuffer, Never>) in
                let ready = state.withLockedValue { s -> ByteBuffer? in
                    if !s.queued.isEmpty { return s.queued.removeFirst() }
                    s.reader = c
                    return nil
                }
                if let ready { c.resume(returning: ready) }
            }
        } onCancel: {
            // Nothing here is cancelled: the relay ends with its process.
        }
    }
}
