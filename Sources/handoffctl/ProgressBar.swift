import HandoffAsync
import HandoffCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A transfer's progress line on standard error (only on a terminal): redrawn at most ten times a
/// second as bytes move, and every second while they do not (saying it waits for the link, and
/// how long the stream may wait: the line froze with a stale rate), each draw erasing the rest of
/// the last. `finish(phase:)` ends it; a sender calls `waitFor(_:)` first, so that 100 % is not
/// shown as done before the other machine has the file.
final class ProgressBar: Sendable {
    private let label: String
    private let total: Int64
    private let waiting: String
    private let started = ContinuousClock.now
    private let state = Mutex((done: Int64(0), moved: ContinuousClock.now, drawn: ContinuousClock.now - .seconds(1), phase: String?.none))
    private let shown = isatty(2) != 0
    private let ticker = Mutex<Task<Void, Never>?>(nil)

    /// `waiting`: what a stall waits for, said to the person ("waiting for beta's link: a
    /// transfer resumes if it is back within 60 s").
    init(total: Int64, label: String, waiting: String) {
        self.total = total
        self.label = label
        self.waiting = waiting
        guard shown else { return }
        ticker.withLock {
            $0 = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    self?.draw(force: true)
                }
            }
        }
    }

    deinit { ticker.withLock { $0?.cancel() } }

    func update(_ done: Int64) {
        guard shown else { return }
        state.withLock {
            if done != $0.done { $0.moved = ContinuousClock.now }
            $0.done = done
        }
        draw(force: done >= total)
    }

    /// Every byte moved; the line says what comes next (the receiver saving it) until `finish`.
    func waitFor(_ phase: String) {
        state.withLock { $0.phase = phase }
        draw(force: true)
    }

    func finish() {
        ticker.withLock { $0?.cancel() }
        if shown { StandardStreams.error("\n") }
    }

    private func draw(force: Bool) {
        let now = ContinuousClock.now
        let s = state.withLock { s -> (done: Int64, moved: ContinuousClock.Instant, phase: String?)? in
            guard force || now - s.drawn >= .milliseconds(100) else { return nil }
            s.drawn = now
            return (s.done, s.moved, s.phase)
        }
        guard let s else { return }
        let progress = TransferProgress(
            label: label, total: total, done: s.done, elapsed: Self.seconds(now - started), idle: Self.seconds(now - s.moved))
        // \r, the line, then erase what a longer line before left on the right (ESC [ K).
        StandardStreams.error("\r" + progress.line(waiting: waiting, phase: s.phase) + "\u{1B}[K")
    }

    static func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

    static func size(_ n: Int64) -> String { TransferProgress.size(n) }
}
