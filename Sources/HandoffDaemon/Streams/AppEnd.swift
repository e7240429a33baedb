#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// A descriptor this process owns until it is handed on or closed: the app's end of a stream.
public final class OwnedDescriptor: @unchecked Sendable {
    private var fd: Int32

    init(_ fd: Int32) { self.fd = fd }

    /// The descriptor, or -1 once taken or closed.
    public var value: Int32 { fd }

    public func close() {
        if fd >= 0 { _ = Glibc.close(fd) }
        fd = -1
    }

    deinit { close() }
}

/// The two ends of a stream's socket: ours, as a NIO channel, and the app's, as a descriptor
/// passed to it (SCM_RIGHTS or a D-Bus `h`). A Unix stream socket pair: any app reads and writes
/// it with ordinary calls, and a half-close (shutdown) is seen on the other end.
enum AppEnd {
    static func make(group: EventLoopGroup, chunk: Int, handler: @escaping @Sendable () -> AppEndHandler) async throws -> (Channel, OwnedDescriptor) {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw StreamError.failed(code: "stream-socket", message: "could not make the stream's socket: \(String(cString: strerror(errno)))")
        }
        let theirs = OwnedDescriptor(fds[1])
        do {
            let channel = try await ClientBootstrap(group: group)
                .channelOption(.allowRemoteHalfClosure, value: true)
                .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: chunk))
                .channelInitializer { ch in ch.eventLoop.makeCompletedFuture { try ch.pipeline.syncOperations.addHandler(handler()) } }
                .withConnectedSocket(fds[0]).get()
            return (channel, theirs)
        } catch {
            _ = Glibc.close(fds[0])
            throw StreamError.failed(code: "stream-socket", message: "could not serve the stream's socket: \(error)")
        }
    }
}

/// Our end of an app's stream socket: what the app writes goes to the stream, read only while
/// the peer's window has room (else the app's writes wait in its own socket); its half-close and
/// its going away are told to the stream.
///
/// What the app wrote is handed on in chunks of a frame's payload: a read fills a buffer of a
/// power of two (NIO rounds capacities up), a frame carries a little less, and handing on each
/// read as it came made every full read two frames, the second of 36 bytes. Bytes wait here only
/// until the reads NIO makes in one go are done (`channelReadComplete`), so a short write (a
/// keystroke, an echo) leaves at once.
final class AppEndHandler: ChannelDuplexHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer

    private weak var link: StreamLink?
    private var context: ChannelHandlerContext?
    private var heldRead = false
    private let payload: Int
    /// Read from the app, not yet handed to the stream: less than `payload` bytes.
    private var pending: [UInt8] = []

    init(link: StreamLink, payload: Int) {
        self.link = link
        self.payload = payload
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        while buffer.readableBytes > 0 {
            if pending.isEmpty { pending.reserveCapacity(payload) }
            let n = min(payload - pending.count, buffer.readableBytes)
            buffer.withUnsafeReadableBytes { pending.append(contentsOf: $0[..<n]) }
            buffer.moveReaderIndex(forwardBy: n)
            if pending.count == payload { handOn() }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        handOn()
        context.fireChannelReadComplete()
    }

    private func handOn() {
        guard !pending.isEmpty else { return }
        let chunk = pending
        pending = []
        link?.fromApp(chunk)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event {
            handOn()
            link?.appEnded()
        }
        context.fireUserInboundEventTriggered(event)
    }

    func read(context: ChannelHandlerContext) {
        if link?.mayReadFromApp ?? false { context.read() } else { heldRead = true }
    }

    /// The window opened again: the held read goes out.
    func resumeReading() {
        guard heldRead, let context else { return }
        heldRead = false
        context.read()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        link?.appFailed("\(error)")
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        handOn()
        link?.appGone()
        context.fireChannelInactive()
    }
}

/// Why a stream could not be made, opened or accepted.
enum StreamError: Error {
    case failed(code: String, message: String)
}
