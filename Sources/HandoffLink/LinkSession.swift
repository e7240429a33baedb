import HandoffCore
import NIOConcurrencyHelpers
import NIOCore

/// An authenticated, encrypted connection to a paired peer: send messages, read them as an
/// AsyncStream. Each message is one frame: at most `maxMessage` bytes (the frame limit less the
/// AEAD tag and the kind byte).
public final class LinkSession: Sendable {
    public let peer: PeerIdentity
    public let channel: Channel
    public let messages: AsyncStream<[UInt8]>
    public let maxMessage: Int
    /// True when this machine opened the connection: both ends agree on it, which is what lets
    /// them keep the same one of two sessions opened at once (see `PeerLinks`).
    public let initiatedLocally: Bool
    /// Why the session ended, once it has.
    public var closeReason: LinkError? { bridge.reason.withLockedValue { $0 } }
    let bridge: SessionBridge

    init(peer: PeerIdentity, channel: Channel, bridge: SessionBridge, maxFrame: Int, initiatedLocally: Bool) {
        self.peer = peer
        self.channel = channel
        self.initiatedLocally = initiatedLocally
        self.bridge = bridge
        maxMessage = Self.maxMessage(frame: maxFrame)
        messages = bridge.stream
    }

    /// The peer's end: its address and port ("host:port", "[v6]:port").
    public var remoteEndpoint: PeerEndpoint? { channel.remoteAddress.flatMap(PeerEndpoint.init(socketAddress:)) }
    /// This machine's end.
    public var localEndpoint: PeerEndpoint? { channel.localAddress.flatMap(PeerEndpoint.init(socketAddress:)) }

    /// The largest application message a frame of `frame` bytes carries.
    public static func maxMessage(frame: Int) -> Int { frame - 16 - 1 }

    /// Sends one message. One that does not fit a frame fails here, before anything is written:
    /// sealing it would fail inside the pipeline and close the whole session.
    public func send(_ message: [UInt8]) async throws {
        guard message.count <= maxMessage else { throw LinkError.messageTooLarge(size: message.count, limit: maxMessage) }
        try await channel.writeAndFlush(channel.allocator.buffer(bytes: [MessageKind.application.rawValue] + message))
    }

    func sendControl(_ control: LinkControl) async throws {
        try await channel.writeAndFlush(channel.allocator.buffer(bytes: control.bytes))
    }

    public func close() async {
        try? await channel.close()
    }
}

/// The last handler of a session pipeline: inbound messages into an AsyncStream.
final class SessionBridge: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    let stream: AsyncStream<[UInt8]>
    private let continuation: AsyncStream<[UInt8]>.Continuation
    let reason = NIOLockedValueBox<LinkError?>(nil)

    /// Called on the event loop for each control message from the peer.
    private let onControl: @Sendable (LinkControl) -> Void

    init(onControl: @escaping @Sendable (LinkControl) -> Void = { _ in }) {
        (stream, continuation) = AsyncStream.makeStream()
        self.onControl = onControl
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = Array(buffer: unwrapInboundIn(data))
        switch bytes.first.flatMap(MessageKind.init(rawValue:)) {
        case .application:
            continuation.yield(Array(bytes.dropFirst()))
        case .control:
            // Unknown control messages are ignored, so that a newer peer may add some.
            if let control = LinkControl(body: bytes.dropFirst()) { onControl(control) }
        case nil:
            reason.withLockedValue { if $0 == nil { $0 = .noise(.malformedMessage("unknown message kind")) } }
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        reason.withLockedValue { if $0 == nil { $0 = (error as? LinkError) ?? .closed } }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        reason.withLockedValue { if $0 == nil { $0 = .closed } }
        continuation.finish()
        context.fireChannelInactive()
    }
}
