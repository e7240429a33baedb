import HandoffCore
import NIOConcurrencyHelpers
import NIOCore

/// An authenticated, encrypted connection to a paired peer: send messages, read them as an
/// AsyncSequence. Each message is one frame: at most `maxMessage` bytes (the frame limit less the
/// AEAD tag and the kind byte).
///
/// Bounded both ways: reading stops while `limits.inboundHigh` messages wait for the daemon (the
/// peer's sends then wait in its own socket), and every write has a deadline and a share of
/// `limits.maxPendingBytes`; a peer that does not take what we send is closed as `stalled`.
public final class LinkSession: Sendable {
    public let peer: PeerIdentity
    public let channel: Channel
    public let messages: Messages
    public let maxMessage: Int
    /// True when this machine opened the connection: both ends agree on it, which is what lets
    /// them keep the same one of two sessions opened at once (see `PeerLinks`).
    public let initiatedLocally: Bool
    /// Unique among this process's sessions, never reused: what outlives the session names it by
    /// this (an `ObjectIdentifier` is the object's address, which the next session may get).
    public let serial: UInt64
    private static let serials = NIOLockedValueBox<UInt64>(0)
    /// Why the session ended, once it has.
    public var closeReason: LinkError? { reason.withLockedValue { $0 } }
    let reason: NIOLockedValueBox<LinkError?>
    private let limits: SessionLimits
    /// Bytes and writes handed to the channel whose write has not completed.
    private let pending = NIOLockedValueBox(PendingWrites())
    /// Streams with frames to write, in turn (touched on the event loop only).
    private let outbox: NIOLoopBoundBox<StreamOutbox>

    init(
        peer: PeerIdentity, channel: Channel, bridge: SessionBridge, maxFrame: Int, limits: SessionLimits, initiatedLocally: Bool
    ) {
        self.peer = peer
        self.channel = channel
        self.initiatedLocally = initiatedLocally
        serial = Self.serials.withLockedValue {
            $0 += 1
            return $0
        }
        reason = bridge.reason
        self.limits = limits
        maxMessage = Self.maxMessage(frame: maxFrame)
        messages = bridge.makeMessages(on: channel.eventLoop, limits: limits)
        outbox = NIOLoopBoundBox(StreamOutbox(), eventLoop: channel.eventLoop)
        // The streams waiting for a turn let go of the session's end.
        channel.closeFuture.whenComplete { [outbox] _ in outbox.value.ready.removeAll() }
    }

    /// The peer's end: its address and port ("host:port", "[v6]:port").
    public var remoteEndpoint: PeerEndpoint? { channel.remoteAddress.flatMap(PeerEndpoint.init(socketAddress:)) }
    /// This machine's end.
    public var localEndpoint: PeerEndpoint? { channel.localAddress.flatMap(PeerEndpoint.init(socketAddress:)) }

    /// The largest application message a frame of `frame` bytes carries.
    public static func maxMessage(frame: Int) -> Int { frame - 16 - 1 }

    /// Bytes written to this session that the peer has not taken yet.
    public var pendingBytes: Int { pending.withLockedValue { $0.bytes } }
    /// Writes handed to the channel that have not completed.
    public var pendingWrites: Int { pending.withLockedValue { $0.writes } }

    /// Sends one message and waits until the peer's socket took it (at most the write deadline).
    /// One that does not fit a frame fails here, before anything is written: sealing it would
    /// fail inside the pipeline and close the whole session.
    public func send(_ message: [UInt8]) async throws {
        guard message.count <= maxMessage else { throw LinkError.messageTooLarge(size: message.count, limit: maxMessage) }
        do { try await write([MessageKind.application.rawValue] + message).get() } catch {
            // The write failed because the session was closed as stalled: say that, not "closed".
            if closeReason == .stalled { throw LinkError.stalled }
            throw error
        }
    }

    /// Sends one message without waiting for it: for notifications, so that a peer that does not
    /// read never holds up the caller (it is closed at the write deadline instead). False if it
    /// was not written (too large, or the session is closed or stalled).
    @discardableResult
    public func post(_ message: [UInt8]) -> Bool {
        guard message.count <= maxMessage, channel.isActive else { return false }
        _ = write([MessageKind.application.rawValue] + message)
        return true
    }

    /// `sender` has stream frames to write: the session asks it for them one at a time
    /// (`StreamSender.nextStreamFrame`) while less than `limits.streamHighWater` bytes wait for the
    /// peer's socket, streams in turn, so that a transfer never makes the session `stalled`, a ping
    /// waits behind at most that much, and no stream has more than one frame made and not written.
    /// The sender calls this once and again only after it answered that it has nothing more.
    public func schedule(_ sender: any StreamSender) {
        // Always queued, even from the event loop: the sender calls this under its own lock, which
        // asking it for a frame takes.
        channel.eventLoop.execute {
            guard self.channel.isActive else { return }
            self.outbox.value.ready.append(sender)
            self.drainStreams()
        }
    }

    /// Writes one small stream frame (`bytes` starts with `MessageKind.stream`: a reset) after
    /// everything queued before it. False if the session is closed.
    @discardableResult
    public func sendStreamFrame(_ bytes: [UInt8]) -> Bool {
        guard channel.isActive, bytes.count <= maxMessage + 1 else { return false }
        _ = write(bytes)
        return true
    }

    private func drainStreams() {
        while pending.withLockedValue({ $0.bytes }) < limits.streamHighWater, let sender = outbox.value.ready.popFirst() {
            let (frame, more) = sender.nextStreamFrame(for: self, allocator: channel.allocator)
            guard let frame else { continue }
            if more { outbox.value.ready.append(sender) }
            let promise = channel.eventLoop.makePromise(of: Void.self)
            promise.futureResult.whenComplete { [self] _ in drainStreams() }
            writeOnLoop(frame, promise)
        }
    }

    func sendControl(_ control: LinkControl) async throws {
        try await write(control.bytes).get()
    }

    /// Every write: counted against the pending bytes, and given a deadline. All of it happens on
    /// the event loop in one hop (each `whenComplete` or `scheduleTask` from another thread is a
    /// hop of its own, and they showed in the continue latency). Queued even from the event loop
    /// (where handoffd's tasks run): stream frames are queued so, and a write made at once would
    /// pass frames queued before it (a goodbye passed the stream's reset at a stop, and the peer
    /// waited 60 s for the stream to resume).
    private func write(_ bytes: [UInt8]) -> EventLoopFuture<Void> {
        let loop = channel.eventLoop
        let promise = loop.makePromise(of: Void.self)
        loop.execute { self.writeOnLoop(self.channel.allocator.buffer(bytes: bytes), promise) }
        return promise.futureResult
    }

    private func writeOnLoop(_ bytes: ByteBuffer, _ promise: EventLoopPromise<Void>) {
        let size = bytes.readableBytes
        // Bounded in writes as well as bytes: each costs a promise, its callbacks and maybe a
        // timer whatever its size, and a peer that does not read can make us answer it with many
        // small ones.
        let over = pending.withLockedValue { p -> Bool in
            p.bytes += size
            p.writes += 1
            return p.bytes > limits.maxPendingBytes || p.writes > limits.maxPendingWrites
        }
        // Touched on the event loop only (the future completes there).
        let state = NIOLoopBoundBox((done: false, timer: Scheduled<Void>?.none), eventLoop: channel.eventLoop)
        promise.futureResult.whenComplete { [pending] _ in
            state.value.done = true
            state.value.timer?.cancel()
            pending.withLockedValue {
                $0.bytes -= size
                $0.writes -= 1
            }
        }
        if over {
            stalled()
            promise.fail(LinkError.stalled)
            return
        }
        channel.writeAndFlush(bytes, promise: promise)
        // Most writes reach the socket at once, in the flush above: only one that waits gets a
        // deadline (a timer per write cost the continue path about 5 %).
        guard !state.value.done else { return }
        state.value.timer = channel.eventLoop.scheduleTask(in: limits.writeDeadline) { [self] in
            stalled()
            promise.fail(LinkError.stalled)
        }
    }

    /// The peer did not take what we sent in time: the session ends, and says why.
    private func stalled() {
        reason.withLockedValue { if $0 == nil { $0 = .stalled } }
        channel.close(promise: nil)
    }

    public func close() async {
        try? await channel.close()
    }

    /// The peer's messages in order; ends when the session closes. Reading the socket pauses
    /// while the consumer is `inboundHigh` messages behind (NIO's high/low watermark strategy).
    public typealias Messages = NIOAsyncSequenceProducer<
        [UInt8], NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark, SessionBridge.Demand
    >
}

/// The last handler of a session pipeline. The link's own control messages are handled here, on
/// the event loop; the application's go (without their kind byte) into a back-pressured sequence:
/// when `inboundHigh` wait unread, the socket is not read again until the consumer has taken them
/// down to `inboundLow`, so the peer's sends wait in its own socket buffer, not in our memory.
public final class SessionBridge: ChannelDuplexHandler {
    public typealias InboundIn = ByteBuffer
    public typealias OutboundIn = ByteBuffer
    public typealias OutboundOut = ByteBuffer

    let reason = NIOLockedValueBox<LinkError?>(nil)
    /// Called on the event loop for each control message from the peer.
    private let onControl: @Sendable (LinkControl) -> Void
    /// Called on the event loop for each stream frame (without its kind byte).
    private let onStream: (ByteBufferView) -> Void
    private var source: LinkSession.Messages.Source?
    private var context: ChannelHandlerContext?
    /// False while the consumer is behind: a read NIO asks for is held until it catches up.
    private var producing = true
    private var heldRead = false

    init(onControl: @escaping @Sendable (LinkControl) -> Void = { _ in }, onStream: @escaping (ByteBufferView) -> Void = { _ in }) {
        self.onControl = onControl
        self.onStream = onStream
    }

    /// Makes the sequence the session is read through; on the event loop, before any read.
    func makeMessages(on loop: EventLoop, limits: SessionLimits) -> LinkSession.Messages {
        let made = LinkSession.Messages.makeSequence(
            backPressureStrategy: .init(lowWatermark: limits.inboundLow, highWatermark: limits.inboundHigh),
            finishOnDeinit: true, delegate: Demand(bridge: NIOLoopBound(self, eventLoop: loop)))
        source = made.source
        return made.sequence
    }

    public func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    public func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        switch buffer.readInteger(as: UInt8.self).flatMap(MessageKind.init(rawValue:)) {
        case .application:
            // Nobody reads any more (the consumer stopped): the message is dropped.
            guard let source else { return }
            if source.yield(Array(buffer: buffer)) == .stopProducing { producing = false }
        case .stream:
            onStream(buffer.readableBytesView)
        case .control:
            // Unknown control messages are ignored, so that a newer peer may add some.
            if let control = LinkControl(body: ArraySlice(buffer.readableBytesView)) { onControl(control) }
        case nil:
            reason.withLockedValue { if $0 == nil { $0 = .noise(.malformedMessage("unknown message kind")) } }
            context.close(promise: nil)
        }
    }

    public func read(context: ChannelHandlerContext) {
        if producing { context.read() } else { heldRead = true }
    }

    /// The consumer caught up: the held read goes out.
    fileprivate func produceMore() {
        producing = true
        if heldRead, let context {
            heldRead = false
            context.read()
        }
    }

    /// The consumer is gone: read on (control messages still matter), drop what is not its.
    fileprivate func terminated() {
        source = nil
        produceMore()
    }

    public func errorCaught(context: ChannelHandlerContext, error: Error) {
        reason.withLockedValue { if $0 == nil { $0 = (error as? LinkError) ?? .closed } }
        context.close(promise: nil)
    }

    public func channelInactive(context: ChannelHandlerContext) {
        reason.withLockedValue { if $0 == nil { $0 = .closed } }
        source?.finish()
        source = nil
        context.fireChannelInactive()
    }

    /// The consumer's demand, delivered on the session's event loop.
    public struct Demand: NIOAsyncSequenceProducerDelegate {
        let bridge: NIOLoopBound<SessionBridge>
        public func produceMore() { bridge.eventLoop.execute { bridge.value.produceMore() } }
        public func didTerminate() { bridge.eventLoop.execute { bridge.value.terminated() } }
    }
}

/// Streams with frames to write, in turn.
struct StreamOutbox {
    var ready = CircularBuffer<any StreamSender>()
}

struct PendingWrites {
    var bytes = 0
    var writes = 0
}

/// A stream that writes its frames on a session when the session asks (`LinkSession.schedule`).
public protocol StreamSender: AnyObject, Sendable {
    /// The next frame to write on `session` (its first byte `MessageKind.stream`), and whether
    /// another follows; nil (and false) when nothing is due. Called on the session's event loop.
    func nextStreamFrame(for session: LinkSession, allocator: ByteBufferAllocator) -> (frame: ByteBuffer?, more: Bool)
}
