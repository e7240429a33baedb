import Foundation
import NIOConcurrencyHelpers

/// Machine-wide pairing state: whether the window is open, the one pairing in progress, and the
/// lockout after repeated failures.
final class PairingCoordinator: Sendable {
    private struct State {
        var windowUntil: Date?
        var active: PairingSession?
        var lockout = PairingLockout()
    }
    private let state = NIOLockedValueBox(State())

    func openWindow(for seconds: TimeInterval, now: Date = Date()) { state.withLockedValue { $0.windowUntil = now.addingTimeInterval(seconds) } }
    func closeWindow() { state.withLockedValue { $0.windowUntil = nil } }
    var windowCloses: Date? { state.withLockedValue { $0.windowUntil } }

    func isLocked(now: Date = Date()) -> Bool { state.withLockedValue { $0.lockout.isLocked(at: now) } }

    /// Responder: may a pairing handshake start now? Asked at the preamble, before any crypto,
    /// so it only refuses: ten bytes from a stranger must not stop the pairing in progress (the
    /// code comparison is what defeats a man in the middle, not a race to be first).
    func refusalForIncoming(now: Date = Date()) -> PairingRefusal? {
        state.withLockedValue { s in
            if s.lockout.isLocked(at: now) { return .lockedOut }
            guard let until = s.windowUntil, now < until else { return .notAccepting }
            return s.active == nil ? nil : .busy
        }
    }

    /// Registers a session whose handshake completed; false if another one is active.
    func begin(_ session: PairingSession) -> Bool {
        state.withLockedValue { s in
            if s.active != nil { return false }
            s.active = session
            return true
        }
    }

    /// A pairing that completed its handshake ended. A failure closes the window at once, so a
    /// man in the middle gets one guess per window the person opens, and counts toward the lockout.
    func finished(_ session: PairingSession, success: Bool, now: Date = Date()) {
        state.withLockedValue { s in
            if s.active === session { s.active = nil }
            s.windowUntil = nil
            if success { s.lockout.recordSuccess() } else { s.lockout.recordFailure(at: now) }
        }
    }

}
