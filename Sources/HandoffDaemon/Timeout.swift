import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Timeouts on an event loop's timer heap instead of one sleeping task each.
///
/// A cancelled `Task.sleep` keeps its memory until its deadline (about 600 bytes each, Swift 6.3
/// on Linux). With a sleeping child per peer request (5 s budget) handoffd's heap grew by 4-8 MiB
/// at a few thousand requests a second and did not shrink afterwards. A cancelled NIO timer leaves
/// the heap at once.
enum Timeout {
    /// Runs `action` after `delay`, unless the returned timer is cancelled first.
    static func after(_ delay: Duration, on loop: EventLoop = MultiThreadedEventLoopGroup.singleton.any(),
                      _ action: @escaping @Sendable () -> Void) -> Scheduled<Void> {
        loop.scheduleTask(in: TimeAmount(delay), action)
    }

    /// The operation's result, or nil if it has not finished within `limit`; it is then cancelled.
    static func race<T: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async -> T?) async -> T? {
        let race = Race<T>()
        return await withCheckedContinuation { continuation in
            race.start(continuation)
            let work = Task {
                let value = await operation()
                race.finish(value)
            }
            race.armed(timer: after(limit) {
                // The waiter gets nil first: once cancelled, the operation may return at once.
                race.finish(nil)
                work.cancel()
            })
        }
    }
}

/// The one-time meeting point of an operation and its timer: the first to finish resumes the
/// waiter and cancels the timer.
private final class Race<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T?, Never>?
        var timer: Scheduled<Void>?
        var done = false
    }

    private let state = NIOLockedValueBox(State())

    func start(_ continuation: CheckedContinuation<T?, Never>) {
        state.withLockedValue { $0.continuation = continuation }
    }

    func armed(timer: Scheduled<Void>) {
        let finished = state.withLockedValue { s in
            if !s.done { s.timer = timer }
            return s.done
        }
        if finished { timer.cancel() }
    }

    func finish(_ value: T?) {
        let (continuation, timer) = state.withLockedValue { s -> (CheckedContinuation<T?, Never>?, Scheduled<Void>?) in
            guard !s.done else { return (nil, nil) }
            s.done = true
            defer { s.continuation = nil; s.timer = nil }
            return (s.continuation, s.timer)
        }
        timer?.cancel()
        continuation?.resume(returning: value)
    }
}
