import NIOConcurrencyHelpers
import NIOCore

/// A service's pause between rounds, on the event loop's timer heap, that ends early once `end()`
/// is called (graceful shutdown) or the sleeping task is cancelled, and for one round at `nudge()`
/// (there is work now).
///
/// Not `Task.sleep`: on Linux its timer is Dispatch's, so every wake-up woke Dispatch's timer
/// thread, which woke a worker, which handed the resumption to the event loop (three threads for
/// one tick), and `cancelWhenGracefulShutdown` around it made a task group and two child tasks
/// each round. handoffd's once-a-second rounds did that twice a second in an idle daemon. A nap's
/// wake-up is the loop's own timer: the loop's thread alone wakes.
public final class Nap: Sendable {
    private struct State {
        var sleeper: CheckedContinuation<Void, Never>?
        var timer: Scheduled<Void>?
        var ended = false
        /// A nudge that found no sleep under way: the next sleep returns at once.
        var nudged = false
        /// Which sleep a timer belongs to: a timer that fires as its sleep ends otherwise (a
        /// cancel from another thread comes too late to stop it) wakes only that sleep.
        var round = 0
    }
    private let state = NIOLockedValueBox(State())
    private let loop: EventLoop

    public init(on loop: EventLoop = Timeout.loop) { self.loop = loop }

    /// Whether `end()` was called.
    public var hasEnded: Bool { state.withLockedValue { $0.ended } }

    /// Whether a sleep is under way (its timer set).
    public var isSleeping: Bool { state.withLockedValue { $0.sleeper != nil } }

    /// Returns after `delay`, at `end()`, or when the task is cancelled, whichever comes first; at
    /// once after `end()`. One sleeper at a time. The delay runs on the loop's monotonic clock,
    /// which stops while the machine is suspended: a round due during a suspend comes at most one
    /// delay after the resume (handoffd's rounds are a second at most).
    public func sleep(for delay: Duration) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now = state.withLockedValue { s -> Bool in
                    // Cancelled before the sleeper was set: the handler below found none to wake.
                    if s.ended || Task.isCancelled { return true }
                    if s.nudged {
                        s.nudged = false
                        return true
                    }
                    precondition(s.sleeper == nil, "a Nap has one sleeper at a time")
                    s.sleeper = c
                    s.round += 1
                    let round = s.round
                    s.timer = loop.scheduleTask(in: TimeAmount(delay)) { [self] in wake(ending: false, round: round) }
                    return false
                }
                if now { c.resume() }
            }
        } onCancel: {
            wake(ending: false)
        }
    }

    /// Ends the sleep under way, if any, and every later one at once.
    public func end() { wake(ending: true) }

    /// Ends the sleep under way; with none under way (the round is at work), the next sleep
    /// returns at once, so that work that came during the round is not left for a whole delay.
    public func nudge() { wake(ending: false, nudging: true) }

    private func wake(ending: Bool, nudging: Bool = false, round: Int? = nil) {
        let (sleeper, timer) = state.withLockedValue { s -> (CheckedContinuation<Void, Never>?, Scheduled<Void>?) in
            if let round, round != s.round { return (nil, nil) }
            if ending { s.ended = true }
            if nudging && s.sleeper == nil { s.nudged = true }
            defer { (s.sleeper, s.timer) = (nil, nil) }
            return (s.sleeper, s.timer)
        }
        timer?.cancel()
        sleeper?.resume()
    }
}
