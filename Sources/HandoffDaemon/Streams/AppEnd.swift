#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore
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
            throw StreamError.failed(code: .streamSocket, message: "could not make the stream's socket: \(String(cString: strerror(errno)))")
        }
        // Room for a few reads each way (the kernel caps it at net.core.wmem_max): a transfer
        // wakes the app and the loop less often than with the default of about 200 KiB.
        var room: Int32 = 1 << 20
        for fd in fds { _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &room, socklen_t(MemoryLayout<Int32>.size)) }
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
            throw StreamError.failed(code: .streamSocket, message: "could not serve the stream's socket: \(error)")
        }
    }
}

/// Our end of an app's stream socket: what the app writes goes to the stream, read only while
/// the peer's window has room (else the app's writes wait in its own socket); its half-close and
/// its going away are told to the stream. Each read is copied into the stream's one buffer of
/// unacknowledged bytes at once; the session cuts frames from it when it has room.
final class AppEndHandler: ChannelDuplexHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer

    private weak var link: StreamLink?
    private var context: ChannelHandlerContext?
    private var heldRead = false

    init(link: StreamLink) {
        self.link = link
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        buffer.withUnsafeReadableBytes { link?.fromApp($0) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event {
            link?.appEnded()
        }
        context.fireUserInboundEventTriggered(event)
    }

    func read(context: ChannelHandlerContext) {
        if link?.mayReadFromApp() ?? false { context.read() } else { heldRead = true }
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
        link?.appGone()
        context.fireChannelInactive()
    }
}

/// Why a stream could not be made, opened or accepted.
enum StreamError: Error {
    case failed(code: FailureCode, message: String)
}
