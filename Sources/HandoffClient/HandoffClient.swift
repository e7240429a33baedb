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
    /// Requests waiting for their answer, by id; a lost connection ends them all, and each waits
    /// at most its operation's `answerWithin` (a stopped daemon answers nothing).
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
        if let tooLong = ClientError.tooLong(socketPath) { throw tooLong }
        do {
            channel = try await ClientBootstrap(group: group)
                .channelInitializer { ch in
                    ch.eventLoop.makeCompletedFuture {
                        try ch.pipeline.syncOperations.addHandler(ResponseHandler(state: state, answers: answers, events: eventsIn))
                    }
                }
                .connect(unixDomainSocketPath: socketPath).get()
        } catch {
            if let io = error as? IOError { throw .connecting(errno: io.errnoCode, socket: socketPath) }
            throw .daemonNotRunning(socket: socketPath)
        }
        return HandoffClient(socketPath: socketPath, channel: channel, events: events, state: state, answers: answers)
    }

    /// Performs one control operation and decodes its typed result. Fails with `noAnswer` if
    /// handoffd has not answered within the operation's `answerWithin`.
    public func perform<Op: ControlOperation>(_ operation: Op) async throws(ClientError) -> Op.Result {
        try await perform(operation, within: operation.answerWithin)
    }

    /// The same, waiting at most `bound` for the answer (nil: as long as handoffd takes).
    public func perform<Op: ControlOperation>(_ operation: Op, within bound: Duration?) async throws(ClientError) -> Op.Result {
        let answer = try await request(Op.name, operation.arguments, within: bound)
        do throws(ControlError) { return try Op.Result(propertyList: answer) } catch {
            throw .badResponse("\(Op.name): \(error.description)")
        }
    }

    /// Sends one request and waits for its answer (the operation by name, its arguments as values),
    /// at most `bound` if one is given: a request by name has no `answerWithin` to go by.
    /// handoffd answers a connection's requests in the order they were sent, so the bound counts
    /// while the daemon is at this request: a status sent behind a `send` that waits a minute on
    /// the other machine is not given up on at 30 s (`expire`).
    public func request(
        _ op: String, _ arguments: [String: PropertyListValue] = [:], within bound: Duration? = nil
    ) async throws(ClientError) -> PropertyListValue? {
        let (id, ticket) = try enqueue(op, arguments, within: bound)
        return try await answer(id, ticket)
    }

    /// A request written, whose answer is awaited later (`queue`).
    public struct Pending<Op: ControlOperation>: Sendable {
        let client: HandoffClient
        let id: Int64
        let ticket: Waiters<Int64, Result<PropertyListValue?, ClientError>>.Ticket

        /// Its typed answer.
        public func answer() async throws(ClientError) -> Op.Result {
            let value = try await client.answer(id, ticket)
            do throws(ControlError) { return try Op.Result(propertyList: value) } catch {
                throw .badResponse("\(Op.name): \(error.description)")
            }
        }
    }

    /// Writes one operation now and returns at once; its answer is awaited with `answer()`.
    /// Operations queued one after another go out, and take effect, in that order: a window's
    /// save, then the `handled` that names the window, without waiting for the save's disk.
    public func queue<Op: ControlOperation>(_ operation: Op) throws(ClientError) -> Pending<Op> {
        let (id, ticket) = try enqueue(Op.name, operation.arguments, within: operation.answerWithin)
        return Pending(client: self, id: id, ticket: ticket)
    }

    private func enqueue(
        _ op: String, _ arguments: [String: PropertyListValue], within bound: Duration?
    ) throws(ClientError) -> (Int64, Waiters<Int64, Result<PropertyListValue?, ClientError>>.Ticket) {
        let line = { (id: Int64) in ControlRequest(id: id, op: op, arguments: arguments).line }
        // The id, its wait and the write's place in the loop's queue are one step, so that ids go
        // out in the order they are given and "an earlier request is unanswered" (`expire`)
        // means what it says.
        // The wait is registered before the connection's state is read: a connection that ends
        // after this check ends the wait too.
        let sent = state.withLockedValue { s -> Result<(Int64, Waiters<Int64, Result<PropertyListValue?, ClientError>>.Ticket), ClientError> in
            let id = s.nextID
            s.nextID += 1
            let ticket = answers.register(id)
            if let failure = s.refusal ?? (s.closed ? ClientError.connectionLost : nil) {
                answers.forget(ticket)
                return .failure(failure)
            }
            // Queued on the loop, not written here: a write made on the loop's own thread runs
            // the pipeline at once, and a write that finds the socket closed closes the channel,
            // whose handler takes this lock (NIO's task queue keeps the order they are queued in).
            let (channel, answers, bytes) = (self.channel, self.answers, line(id))
            channel.eventLoop.execute {
                channel.writeAndFlush(channel.allocator.buffer(bytes: bytes)).whenFailure { _ in
                    answers.resumeOldest(id, with: .failure(.connectionLost))
                }
            }
            return .success((id, ticket))
        }
        let (id, ticket) = try sent.get()
        if let bound { channel.eventLoop.scheduleTask(in: TimeAmount(bound)) { [self] in expire(id, ticket, op: op, bound: bound) } }
        return (id, ticket)
    }

    fileprivate func answer(
        _ id: Int64, _ ticket: Waiters<Int64, Result<PropertyListValue?, ClientError>>.Ticket
    ) async throws(ClientError) -> PropertyListValue? {
        switch await answers.wait(ticket) {
        case .value(let result): return try result.get()
        default: throw state.withLockedValue { $0.refusal } ?? .connectionLost
        }
    }

    /// The bound of request `id` ran out: it fails with `noAnswer`, unless the daemon is still at
    /// an earlier request of this connection (one still waiting), when it gets its bound afresh.
    /// A request given up on waits no more, so that a daemon that stopped fails each in turn.
    private func expire(_ id: Int64, _ ticket: Waiters<Int64, Result<PropertyListValue?, ClientError>>.Ticket, op: String, bound: Duration) {
        guard answers.isWaiting(ticket) else { return }
        if answers.isWaiting(where: { $0 < id }) {
            channel.eventLoop.scheduleTask(in: TimeAmount(bound)) { [self] in expire(id, ticket, op: op, bound: bound) }
        } else {
            answers.resumeOldest(id, with: .failure(.noAnswer(operation: op, within: bound)))
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

    private var framer = LineFramer(maxLine: AnswerLine.maxLength)
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
                failOldest(AnswerLine.tooLong)
                continue
            }
            switch AnswerLine(bytes) {
            case .event(let event):
                events.yield(event)
            case .unreadable(let id, let message):
                // Never leave a request waiting for an answer we could not read.
                failOldest(message, id: id)
            case .answer(let id?, let outcome):
                answers.resumeOldest(id, with: outcome)
            case .answer(nil, let outcome):
                // An answer without an id is the daemon turning the connection away: it goes to
                // every waiter and is kept for later requests.
                guard case .failure(let refusal) = outcome else { continue }
                state.withLockedValue { $0.refusal = refusal }
                answers.endAll()
            }
        }
    }

    /// Fails the request `id` (or, not knowing it, the oldest: answers come in request order).
    private func failOldest(_ message: String, id: Int64? = nil) {
        let failure = Result<PropertyListValue?, ClientError>.failure(.refused(code: .unreadableAnswer, message: message))
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
