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

    /// Responder: may a pairing handshake start now? A second attempt while one is in progress
    /// stops both (either could be the attacker).
    func refusalForIncoming(now: Date = Date()) -> PairingRefusal? {
        let (refusal, toAbort): (PairingRefusal?, PairingSession?) = state.withLockedValue { s in
            if s.lockout.isLocked(at: now) { return (.lockedOut, nil) }
            guard let until = s.windowUntil, now < until else { return (.notAccepting, nil) }
            if let active = s.active { return (.busy, active) }
            return (nil, nil)
        }
        toAbort?.abort(.anotherAttempt)
        return refusal
    }

    /// Registers a session; false if another one is active.
    func begin(_ session: PairingSession) -> Bool {
        state.withLockedValue { s in
            if s.active != nil { return false }
            s.active = session
            return true
        }
    }

    func finished(_ session: PairingSession, success: Bool, now: Date = Date()) {
        state.withLockedValue { s in
            if s.active === session { s.active = nil }
            if success {
                s.lockout.recordSuccess()
                s.windowUntil = nil
            } else {
                s.lockout.recordFailure(at: now)
            }
        }
    }

    /// A refusal or handshake failure during pairing counts as a failure too.
    func recordFailure(now: Date = Date()) { state.withLockedValue { $0.lockout.recordFailure(at: now) } }
}
