import NIOCore

/// A weak reference to a channel handler, for a timer that runs on the handler's event loop:
/// the timer must not keep a closed channel's handler alive, and NIO's timers take @Sendable
/// closures, which may not capture the (non-Sendable) handler itself. `NIOLoopBound` checks at
/// run time that it is read on that loop.
struct WeakHandler<Handler: AnyObject> {
    weak var handler: Handler?

    static func bound(_ handler: Handler, to loop: any EventLoop) -> NIOLoopBound<WeakHandler<Handler>> {
        NIOLoopBound(WeakHandler(handler: handler), eventLoop: loop)
    }
}
