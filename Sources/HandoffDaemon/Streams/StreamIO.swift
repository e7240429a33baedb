import NIOCore

/// The link's own bookkeeping between the machine and the two sockets.
struct StreamIO {
    /// The peer's bytes not yet handed to the app's socket.
    var toApp = ByteBuffer()
    /// A write to the app's socket is on its way.
    var writing = false
    /// The session we ride has us in its turn (`LinkSession.schedule`).
    var queued = false
    /// Our end holds a read of the app until the window opens.
    var readHeld = false
}

/// A stream link held weakly across a hop to another event loop.
struct WeakLink: @unchecked Sendable {
    weak var value: StreamLink?
    init(_ value: StreamLink) { self.value = value }
}
