import Foundation
import HandoffControl
import HandoffCore
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A connection to the local handoffd's control socket: requests with answers, and the event
/// stream (for `watch` and live handlers). One per app or command.
public final class HandoffClient: Sendable {
    public static let defaultSocketPath = "/run/handoffd/control.sock"

    public let socketPath: String
    /// Event lines from the daemon, as `(name, fields)`.
    public let events: AsyncStream<ControlEvent>
    private let channel: Channel
    private let state: NIOLockedValueBox<State>

    struct State {
        var nextID: Int64 = 1
        var waiting: [Int64: CheckedContinuation<PropertyListValue?, Error>] = [:]
        var closed = false
        /// Why the daemon turned this connection away, if it did: every request then fails with it.
        var refusal: ClientError?
    }

    private init(socketPath: String, channel: Channel, events: AsyncStream<ControlEvent>, state: NIOLockedValueBox<State>) {
        self.socketPath = socketPath
        self.channel = channel
        self.events = events
        self.state = state
    }

    public static func connect(socketPath: String = defaultSocketPath,
                               group: EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws(ClientError) -> HandoffClient {
        let (events, eventsIn) = AsyncStream.makeStream(of: ControlEvent.self)
        let state = NIOLockedValueBox(State())
        let channel: Channel
        do {
            channel = try await ClientBootstrap(group: group)
                .channelInitializer { ch in
                    ch.eventLoop.makeCompletedFuture {
                        try ch.pipeline.syncOperations.addHandler(ResponseHandler(state: state, events: eventsIn))
                    }
                }
                .connect(unixDomainSocketPath: socketPath).get()
        } catch {
            if let io = error as? IOError, io.errnoCode == EACCES { throw .permissionDenied(socket: socketPath) }
            throw .daemonNotRunning(socket: socketPath)
        }
        return HandoffClient(socketPath: socketPath, channel: channel, events: events, state: state)
    }

    /// Sends one request and waits for its answer.
    public func request(_ op: String, _ arguments: [String: PropertyListValue] = [:]) async throws(ClientError) -> PropertyListValue? {
        do {
            return try await withCheckedThrowingContinuation { (c: CheckedContinuation<PropertyListValue?, Error>) in
                let (id, failure): (Int64?, ClientError?) = state.withLockedValue { s in
                    if let refusal = s.refusal { return (nil, refusal) }
                    if s.closed { return (nil, .connectionLost) }
                    let id = s.nextID
                    s.nextID += 1
                    s.waiting[id] = c
                    return (id, nil)
                }
                guard let id else { return c.resume(throwing: failure ?? .connectionLost) }
                let line = ControlRequest(id: id, op: op, arguments: arguments).line
                channel.writeAndFlush(channel.allocator.buffer(bytes: line)).whenFailure { [state] _ in
                    state.withLockedValue { $0.waiting.removeValue(forKey: id) }?.resume(throwing: ClientError.connectionLost)
                }
            }
        } catch let error as ClientError {
            throw error
        } catch {
            throw .connectionLost
        }
    }

    public func close() async { try? await channel.close() }
}

/// An event line from the daemon.
public struct ControlEvent: Sendable, Equatable {
    public let name: String
    public let fields: [String: PropertyListValue]
}

/// Reads answer and event lines; resumes the matching request.
private final class ResponseHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    /// Answers come from our own daemon and may carry a whole scene: far more room than requests.
    static let maxAnswerLine = 16 * 1024 * 1024
    private var framer = LineFramer(maxLine: ResponseHandler.maxAnswerLine)
    private let state: NIOLockedValueBox<HandoffClient.State>
    private let events: AsyncStream<ControlEvent>.Continuation

    init(state: NIOLockedValueBox<HandoffClient.State>, events: AsyncStream<ControlEvent>.Continuation) {
        self.state = state
        self.events = events
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        for item in framer.feed(unwrapInboundIn(data).readableBytesView) {
            guard case .line(let bytes) = item else {
                failOldest("handoffd's answer was longer than \(ResponseHandler.maxAnswerLine) bytes and was dropped")
                continue
            }
            // Our own reader, never Foundation's: an event can carry a peer's values (a date that
            // kills ICU, for one), and a bad one must fail that line only.
            guard let value = try? JSONValue.parse(bytes, limits: ResponseHandler.answerLimits), var fields = value.dictionaryValue else {
                // Never leave a request waiting for an answer we could not read.
                failOldest("handoffd's answer could not be read", id: Self.idOf(bytes))
                continue
            }
            if let name = fields.removeValue(forKey: "event")?.stringValue {
                events.yield(ControlEvent(name: name, fields: fields))
                continue
            }
            let ok = fields["ok"]?.boolValue ?? false
            let outcome: Result<PropertyListValue?, Error>
            if ok {
                outcome = .success(fields["result"])
            } else {
                let err = fields["error"]?.dictionaryValue
                let code = err?["code"]?.stringValue ?? "unknown"
                let message = err?["message"]?.stringValue ?? "handoffd refused the request"
                outcome = .failure(ClientError.refused(code: code, message: message))
            }
            // An answer without an id is the daemon turning the connection away: it goes to every
            // waiter and is kept for later requests.
            let waiters: [CheckedContinuation<PropertyListValue?, Error>] = state.withLockedValue { s in
                if let id = fields["id"]?.integerValue { return s.waiting.removeValue(forKey: id).map { [$0] } ?? [] }
                if case .failure(let e as ClientError) = outcome { s.refusal = e }
                defer { s.waiting = [:] }
                return Array(s.waiting.values)
            }
            for w in waiters { w.resume(with: outcome) }
        }
    }

    /// The `"id":N` of a line that could not be read whole, so that its own request fails.
    static func idOf(_ line: [UInt8]) -> Int64? {
        let text = String(decoding: line, as: UTF8.self)
        guard let r = text.range(of: "\"id\":") else { return nil }
        return Int64(text[r.upperBound...].prefix(while: { $0 == "-" || $0.isNumber }))
    }

    /// Answers come from our own daemon: bounded only to stay sane.
    static let answerLimits = CodecLimits(maxDepth: 32, maxValues: 4_000_000, maxBytes: maxAnswerLine)

    /// Fails the request `id` (or, not knowing it, the oldest: answers come in request order).
    private func failOldest(_ message: String, id: Int64? = nil) {
        let waiter = state.withLockedValue { s -> CheckedContinuation<PropertyListValue?, Error>? in
            guard let key = id ?? s.waiting.keys.min() else { return nil }
            return s.waiting.removeValue(forKey: key)
        }
        waiter?.resume(throwing: ClientError.refused(code: "unreadable-answer", message: message))
    }

    func channelInactive(context: ChannelHandlerContext) {
        let (waiters, reason) = state.withLockedValue { s -> ([CheckedContinuation<PropertyListValue?, Error>], ClientError) in
            s.closed = true
            defer { s.waiting = [:] }
            return (Array(s.waiting.values), s.refusal ?? .connectionLost)
        }
        for w in waiters { w.resume(throwing: reason) }
        events.finish()
        context.fireChannelInactive()
    }
}
