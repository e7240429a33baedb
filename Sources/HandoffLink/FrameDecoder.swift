import NIOCore

/// Length-prefixed frames: a 4-byte big-endian length, then that many bytes. A length over the
/// limit is an error as soon as the 4 header bytes are in, before any of the body is awaited, so
/// an oversize frame is never buffered whole.
public struct FrameDecoder: ByteToMessageDecoder {
    public typealias InboundOut = ByteBuffer
    /// The largest Noise message; the link's default frame limit.
    public static let defaultMaxFrame = 65_535

    public let maxFrame: Int

    public init(maxFrame: Int = FrameDecoder.defaultMaxFrame) { self.maxFrame = maxFrame }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let length = buffer.getInteger(at: buffer.readerIndex, as: UInt32.self) else { return .needMoreData }
        guard length <= maxFrame else { throw LinkError.frameTooLarge(size: Int(length), limit: maxFrame) }
        guard buffer.readableBytes >= 4 + Int(length) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 4)
        context.fireChannelRead(wrapInboundOut(buffer.readSlice(length: Int(length))!))
        return .continue
    }

    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
}

/// Writes the 4-byte length before each frame, as a buffer of its own: the socket gets both in
/// one gathering write, and the frame (up to 64 KiB, sealed) is not copied again to sit behind it.
public final class FrameEncoder: ChannelOutboundHandler, RemovableChannelHandler {
    public typealias OutboundIn = ByteBuffer
    public typealias OutboundOut = ByteBuffer

    public init() {}

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let frame = unwrapOutboundIn(data)
        var length = context.channel.allocator.buffer(capacity: 4)
        length.writeInteger(UInt32(frame.readableBytes))
        // The frame's promise completes after both, in order: a failed length fails the frame too.
        context.write(wrapOutboundOut(length), promise: nil)
        context.write(data, promise: promise)
    }
}
