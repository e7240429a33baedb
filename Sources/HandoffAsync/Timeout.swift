import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Timeouts on an event loop's timer heap instead of one sleeping task each.
///
/// A cancelled `Task.sleep` keeps its memory until its deadline (about 600 bytes each, Swift 6.3
/// on Linux). With a sleeping child per peer request (5 s budget) handoffd's heap grew by 4-8 MiB
/// at a few thousand requests a second and did not shrink afterwards. A cancelled NIO timer leaves
/// the heap at once.
public enum Timeout {
    /// The loop timers run on when none is given (handoffd runs one).
    public static var loop: EventLoop { MultiThreadedEventLoopGroup.singleton.any() }

    /// Runs `action` after `delay`, unless the returned timer is cancelled first.
    public static func after(
        _ delay: Duration, on loop: EventLoop = Timeout.loop,
        _ action: @escaping @Sendable () -> Void
    ) -> Scheduled<Void> {
        loop.scheduleTask(in: TimeAmount(delay), action)
    }

    /// The operation's result, or nil if it has not finished within `limit` or the caller was
    /// cancelled; the operation is then cancelled.
    public static func race<T: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async -> T?) async -> T? {
        let race = Race<T>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let work = Task { race.finish(await operation()) }
                let timer = after(limit) { race.finish(nil, cancellingOperation: true) }
                race.begin(continuation, work: work, timer: timer)
            }
        } onCancel: {
            race.finish(nil, cancellingOperation: true)
        }
    }
}

/// The one-time meeting point of an operation, its timer and the caller's cancellation: the first
/// to finish gives the waiter its value; the others find the race over.
private final class Race<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T?, Never>?
        var work: Task<Void, Never>?
        var timer: Scheduled<Void>?
        /// Set by the first finish (which may come before `begin`).
        var result: T??
        var cancelOperation = false
    }

    private let state = NIOLockedValueBox(State())

    func begin(_ continuation: CheckedContinuation<T?, Never>, work: Task<Void, Never>, timer: Scheduled<Void>) {
        let over: (value: T?, cancel: Bool)? = state.withLockedValue { s in
            guard let result = s.result else {
                (s.continuation, s.work, s.timer) = (continuation, work, timer)
                return nil
            }
            return (result, s.cancelOperation)
        }
        guard let over else { return }
        timer.cancel()
        continuation.resume(returning: over.value)
        if over.cancel { work.cancel() }
    }

    func finish(_ value: T?, cancellingOperation: Bool = false) {
        let taken = state.withLockedValue { s -> (CheckedContinuation<T?, Never>?, Task<Void, Never>?, Scheduled<Void>?)? in
            guard s.result == nil else { return nil }
            s.result = .some(value)
            s.cancelOperation = cancellingOperation
            defer { (s.continuation, s.work, s.timer) = (nil, nil, nil) }
            return (s.continuation, s.work, s.timer)
        }
        guard let (continuation, work, timer) = taken else { return }
        timer?.cancel()
        // The waiter gets its value first: once cancelled, the operation may return at once.
        continuation?.resume(returning: value)
        if cancellingOperation { work?.cancel() }
    }
}
