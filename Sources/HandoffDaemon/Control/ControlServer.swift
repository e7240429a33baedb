#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffControl
import HandoffCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#endif

/// `struct ucred` (pid, uid, gid: three 32-bit fields), which glibc declares only under
/// _GNU_SOURCE and Swift therefore cannot see; same layout, so SO_PEERCRED fills it.
struct PeerCredentials: Sendable {
    var pid: pid_t = 0
    var uid: uid_t = 0
    var gid: gid_t = 0
}

extension ControlClient {
    /// The socket connection of a control-socket client.
    var channel: Channel { (outlet as! SocketOutlet).channel }
}

/// The control socket: a Unix stream socket, mode 0600, served only to the daemon's uid and root
/// (checked with SO_PEERCRED), with a bounded number of clients and bounded request lines.
/// Requests of one client are answered in order and take effect in order, but for the
/// exceptions `ControlPlace` names. `run()` serves each admitted client in a child task until
/// shutdown, which closes the socket and ends every client's connection.
public final class ControlServer: Service, Sendable {
    public let path: String
    private let allowedUIDs: Set<uid_t>
    private let maxClients: Int
    let maxLine: Int
    let operations: any ControlOperations
    private let logger: Logger
    private let clients = NIOLockedValueBox(0)
    private let phase = NIOLockedValueBox(Phase.idle)
    /// Once stopped, a server stays stopped: its path may belong to another server by then.
    private enum Phase {
        case idle
        case listening(ControlListener)
        case stopped
    }
    /// Admitted clients, handed to `run()`.
    private let connections: (stream: AsyncStream<Connection>, continuation: AsyncStream<Connection>.Continuation)

    struct Connection: Sendable {
        let client: ControlClient
        let lines: ControlLines
        let taken: @Sendable () -> Void
    }

    public init(
        path: String, allowedUIDs: Set<uid_t> = [geteuid(), 0], maxClients: Int = 32, maxLine: Int = LineFramer.defaultMaxLine,
        operations: any ControlOperations, logger: Logger = Logger(label: "handoffd.control")
    ) {
        self.path = path
        self.allowedUIDs = allowedUIDs
        self.maxClients = maxClients
        self.maxLine = maxLine
        self.operations = operations
        self.logger = logger
        connections = AsyncStream.makeStream(of: Connection.self)
    }

    public var clientCount: Int { clients.withLockedValue { $0 } }

    /// Binds the socket (replacing a stale one left by a crash) with mode 0600; nothing once stopped.
    public func start(group: EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws {
        guard case .idle = phase.withLockedValue({ $0 }) else { return }
        let listener = try ControlListener(path: path)
        let kept = phase.withLockedValue { p -> Bool in
            guard case .idle = p else { return false }
            p = .listening(listener)
            return true
        }
        // Stopped while binding: the socket goes at once.
        guard kept else {
            listener.stop()
            return
        }
        do { try runListener(listener, group: group) } catch {
            listener.stop()
            throw error
        }
    }

    private func runListener(_ listener: ControlListener, group: EventLoopGroup) throws {
        try listener.run { [self] fd in
            ClientBootstrap(group: group)
                .channelInitializer { child in
                    child.eventLoop.makeCompletedFuture {
                        try child.pipeline.syncOperations.addHandler(ConnectionHandler(server: self, descriptor: fd))
                    }
                }
                .withConnectedSocket(fd)
                .whenFailure { [logger] error in
                    close(fd)
                    logger.warning("could not serve a control connection", metadata: ["error": "\(error)"])
                }
        }
    }

    /// Serves clients until graceful shutdown or `stop()`; binds the socket first unless `start()` did.
    public func run() async throws {
        if case .idle = phase.withLockedValue({ $0 }) { try await start() }
        await withDiscardingTaskGroup { group in
            for await c in connections.stream.cancelOnGracefulShutdown() {
                group.addTask { await self.serve(c.client, lines: c.lines, taken: c.taken) }
            }
            // Each client's connection ends, and with it what it registered.
            group.cancelAll()
        }
        await stop()
    }

    /// Closes the socket and removes its file; a second call does nothing (the path may belong
    /// to another server by then).
    public func stop() async {
        connections.continuation.finish()
        let was = phase.withLockedValue { p -> Phase in
            defer { p = .stopped }
            return p
        }
        guard case .listening(let listener) = was else { return }
        listener.stop()
    }

    func admitted(_ connection: Connection) { connections.continuation.yield(connection) }

    func admit(_ channel: Channel, descriptor: Int32) -> EventLoopFuture<ControlClient?> {
        let promise = channel.eventLoop.makePromise(of: ControlClient?.self)
        guard let provider = channel as? SocketOptionProvider else {
            refuse(channel, .failed(code: .permissionDenied, message: "could not read the client's credentials"))
            promise.succeed(nil)
            return promise.futureResult
        }
        let future: EventLoopFuture<PeerCredentials> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        future.whenComplete { [self] (result: Result<PeerCredentials, Error>) in
            guard case .success(let cred) = result else {
                refuse(channel, .failed(code: .permissionDenied, message: "could not read the client's credentials"))
                promise.succeed(nil)
                return
            }
            guard allowedUIDs.contains(cred.uid) else {
                logger.warning("refused a control client", metadata: ["client.uid": "\(cred.uid)", "client.pid": "\(cred.pid)"])
                refuse(
                    channel, .failed(code: .permissionDenied, message: "uid \(cred.uid) may not control handoffd; run as uid \(geteuid()) or root"))
                promise.succeed(nil)
                return
            }
            let admitted = clients.withLockedValue { n -> Bool in
                guard n < maxClients else { return false }
                n += 1
                return true
            }
            guard admitted else {
                refuse(
                    channel, .failed(code: .tooManyClients, message: "handoffd serves at most \(maxClients) control clients at once; try again"))
                promise.succeed(nil)
                return
            }
            channel.closeFuture.whenComplete { [clients] _ in clients.withLockedValue { $0 -= 1 } }
            promise.succeed(ControlClient(uid: cred.uid, pid: cred.pid, outlet: SocketOutlet(channel: channel, descriptor: descriptor)))
        }
        return promise.futureResult
    }

    private func refuse(_ channel: Channel, _ error: ControlError) {
        channel.writeAndFlush(channel.allocator.buffer(bytes: ControlLine.error(id: nil, error))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    /// At most this many continues of one client run at once: each is answered only after the
    /// one before it, so this also bounds the answers held for a client that does not read them.
    static let maxRunning = 16

    fileprivate func serve(_ client: ControlClient, lines: ControlLines, taken: @Sendable () -> Void) async {
        // The end of the lines may be seen only after the request running is answered: a closed
        // connection is told at once instead.
        client.channel.closeFuture.whenComplete { [operations] _ in operations.connectionClosing(client) }
        await withDiscardingTaskGroup { group in
            // The turns of the requests running beside this loop (continues: `overlapping`),
            // oldest first; they end in that order. Any other request runs here, once they have
            // all ended, and the next line is taken only after its answer: nothing starts beside
            // it. A line that came while one ran was parsed by the connection's handler, and one
            // that takes effect at once (`atOnce`) has, there (`ServedLine.early`).
            var running: [ControlTurn] = []
            while let item = await lines.next() {
                taken()
                while let first = running.first, first.hasEnded { running.removeFirst() }
                let parsed: Result<ControlRequest, ControlError>
                var early: Task<Performed, Never>?
                switch item {
                case .framed(let framed):
                    guard let p = Self.request(in: framed) else { continue }
                    parsed = p
                case .parsed(let p): parsed = p
                case .early(let r, let task): (parsed, early) = (.success(r), task)
                }
                let request: ControlRequest
                switch parsed {
                case .failure(let error):
                    await running.popLast()?.wait()
                    running = []
                    await written(client, ControlLine.error(id: nil, error))
                    continue
                case .success(let r): request = r
                }
                let place = operations.place(of: request)
                guard place == .overlapping else {
                    // An `atOnce` request takes effect before the earlier ones have ended (most
                    // often already, in the handler); it is answered after them.
                    let taken: Performed? =
                        if let early { await early.value } else if place == .atOnce {
                            await operations.performPassing(request, from: client, after: .now)
                        } else { nil }
                    await running.popLast()?.wait()
                    running = []
                    let result = if let taken { taken } else { await operations.performPassing(request, from: client, after: .now) }
                    // The next request is taken once this answer is taken by the socket: a client
                    // that sends requests and never reads the answers stalls itself, not our memory.
                    await answer(request, with: result, to: client)
                    continue
                }
                if running.count >= Self.maxRunning { await running.removeFirst().wait() }
                let previous = running.last ?? .now, mine = ControlTurn()
                running.append(mine)
                group.addTask { [operations] in
                    let result = await operations.performPassing(request, from: client, after: previous)
                    await previous.wait()
                    await self.answer(request, with: result, to: client)
                    mine.end()
                }
            }
        }
        await operations.disconnected(client)
        // Closed by us too when the server stops (its lines end by cancellation): the client
        // hears at once that nothing more comes (`handoffctl watch` and apps waiting for events
        // heard only when the process exited; a server stopped in a process that lives on
        // left them waiting).
        client.channel.close(promise: nil)
    }

    /// The request a line holds, or why it holds none; nil for a blank line, which is skipped.
    static func request(in item: LineFramer.Item) -> Result<ControlRequest, ControlError>? {
        switch item {
        case .tooLong(let limit): return .failure(.lineTooLong(limit: limit))
        case .line(let bytes):
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return nil }
            do throws(ControlError) { return .success(try ControlRequest(line: bytes)) } catch { return .failure(error) }
        }
    }

    private func answer(
        _ request: ControlRequest, with result: Performed, to client: ControlClient
    ) async {
        switch result {
        case .success(let (value, nil)): await written(client, ControlLine.ok(id: request.id, result: value))
        case .success(let (value, descriptor?)):
            await (client.outlet as! SocketOutlet).answer(ControlLine.ok(id: request.id, result: value), passing: descriptor)
        case .failure(let error): await written(client, ControlLine.error(id: request.id, error))
        }
    }

    private func written(_ client: ControlClient, _ line: [UInt8]) async {
        try? await client.channel.writeAndFlush(client.channel.allocator.buffer(bytes: line)).get()
    }
}
