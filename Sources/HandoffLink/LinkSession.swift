import NIOConcurrencyHelpers
import NIOCore

/// An authenticated, encrypted connection to a paired peer: send messages, read them as an
/// AsyncStream. Each message is one frame (at most the frame limit less 16 bytes).
public final class LinkSession: Sendable {
    public let peer: PeerIdentity
    public let channel: Channel
    public let messages: AsyncStream<[UInt8]>
    /// Why the session ended, once it has.
    public var closeReason: LinkError? { bridge.reason.withLockedValue { $0 } }
    let bridge: SessionBridge

    init(peer: PeerIdentity, channel: Channel, bridge: SessionBridge) {
        self.peer = peer
        self.channel = channel
        self.bridge = bridge
        messages = bridge.stream
    }

    public func send(_ message: [UInt8]) async throws {
        try await channel.writeAndFlush(channel.allocator.buffer(bytes: message))
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

    init() { (stream, continuation) = AsyncStream.makeStream() }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        continuation.yield(Array(buffer: unwrapInboundIn(data)))
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
