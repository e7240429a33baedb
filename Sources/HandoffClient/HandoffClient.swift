#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffAsync
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
    /// Requests waiting for their answer, by id (no deadline: the daemon answers every request,
    /// and a lost connection ends them all).
    private let answers: Waiters<Int64, Result<PropertyListValue?, ClientError>>

    struct State {
        var nextID: Int64 = 1
        var closed = false
        /// Why the daemon turned this connection away, if it did: every request then fails with it.
        var refusal: ClientError?
    }

    private init(
        socketPath: String, channel: Channel, events: AsyncStream<ControlEvent>, state: NIOLockedValueBox<State>,
        answers: Waiters<Int64, Result<PropertyListValue?, ClientError>>
    ) {
        self.socketPath = socketPath
        self.channel = channel
        self.events = events
        self.state = state
        self.answers = answers
    }

    public static func connect(
        socketPath: String = defaultSocketPath,
        group: EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws(ClientError) -> HandoffClient {
        let (events, eventsIn) = AsyncStream.makeStream(of: ControlEvent.self)
        let state = NIOLockedValueBox(State())
        let answers = Waiters<Int64, Result<PropertyListValue?, ClientError>>()
        let channel: Channel
        do {
            channel = try await ClientBootstrap(group: group)
                .channelInitializer { ch in
                    ch.eventLoop.makeCompletedFuture {
                        try ch.pipeline.syncOperations.addHandler(ResponseHandler(state: state, answers: answers, events: eventsIn))
                    }
                }
                .connect(unixDomainSocketPath: socketPath).get()
        } catch {
            if let io = error as? IOError, io.errnoCode == EACCES { throw .permissionDenied(socket: socketPath) }
            throw .daemonNotRunning(socket: socketPath)
        }
        return HandoffClient(socketPath: socketPath, channel: channel, events: events, state: state, answers: answers)
    }

    /// Performs one control operation and decodes its typed result.
    public func perform<Op: ControlOperation>(_ operation: Op) async throws(ClientError) -> Op.Result {
        let answer = try await request(Op.name, operation.arguments)
        do throws(ControlError) { return try Op.Result(propertyList: answer) } catch {
            throw .badResponse("\(Op.name): \(error.description)")
        }
    }

    /// Sends one request and waits for its answer (the operation by name, its arguments as values).
    public func request(_ op: String, _ arguments: [String: PropertyListValue] = [:]) async throws(ClientError) -> PropertyListValue? {
        let id = state.withLockedValue { s in
            defer { s.nextID += 1 }
            return s.nextID
        }
        // Registered before the connection's state is read: a connection that ends after this
        // check ends the wait too.
        let ticket = answers.register(id)
        if let failure = state.withLockedValue({ s in s.refusal ?? (s.closed ? ClientError.connectionLost : nil) }) {
            answers.forget(ticket)
            throw failure
        }
        let line = ControlRequest(id: id, op: op, arguments: arguments).line
        channel.writeAndFlush(channel.allocator.buffer(bytes: line)).whenFailure { [answers] _ in
            answers.resumeOldest(id, with: .failure(.connectionLost))
        }
        switch await answers.wait(ticket) {
        case .value(let result): return try result.get()
        default: throw state.withLockedValue { $0.refusal } ?? .connectionLost
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
    private let answers: Waiters<Int64, Result<PropertyListValue?, ClientError>>
    private let events: AsyncStream<ControlEvent>.Continuation

    init(
        state: NIOLockedValueBox<HandoffClient.State>, answers: Waiters<Int64, Result<PropertyListValue?, ClientError>>,
        events: AsyncStream<ControlEvent>.Continuation
    ) {
        self.state = state
        self.answers = answers
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
            let outcome: Result<PropertyListValue?, ClientError>
            if ok {
                outcome = .success(fields["result"])
            } else {
                let err = fields["error"]?.dictionaryValue
                let code = err?["code"]?.stringValue ?? "unknown"
                let message = err?["message"]?.stringValue ?? "handoffd refused the request"
                outcome = .failure(.refused(code: code, message: message))
            }
            if let id = fields["id"]?.integerValue {
                answers.resumeOldest(id, with: outcome)
            } else if case .failure(let refusal) = outcome {
                // An answer without an id is the daemon turning the connection away: it goes to
                // every waiter and is kept for later requests.
                state.withLockedValue { $0.refusal = refusal }
                answers.endAll()
            }
        }
    }

    /// The `"id":N` of a line that could not be read whole, so that its own request fails.
    static func idOf(_ line: [UInt8]) -> Int64? {
        let key = Array("\"id\":".utf8)
        guard let at = line.indices.first(where: { line[$0...].starts(with: key) }) else { return nil }
        let digits = line[(at + key.count)...].prefix(while: { $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) })
        return Int64(String(decoding: digits, as: UTF8.self))
    }

    /// Answers come from our own daemon: bounded only to stay sane.
    static let answerLimits = CodecLimits(maxDepth: 32, maxValues: 4_000_000, maxBytes: maxAnswerLine)

    /// Fails the request `id` (or, not knowing it, the oldest: answers come in request order).
    private func failOldest(_ message: String, id: Int64? = nil) {
        let failure = Result<PropertyListValue?, ClientError>.failure(.refused(code: "unreadable-answer", message: message))
        if let id { answers.resumeOldest(id, with: failure) } else { answers.resumeOldestOfAll(with: failure) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        state.withLockedValue { $0.closed = true }
        // Each waiting request fails with the refusal, if there was one, else connectionLost.
        answers.endAll()
        events.finish()
        context.fireChannelInactive()
    }
}
