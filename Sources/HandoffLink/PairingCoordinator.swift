#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import NIOConcurrencyHelpers

/// Machine-wide pairing state: whether the window is open, the one pairing in progress, and the
/// lockouts after repeated failures.
///
/// Failures are counted per source address: three from one address lock that address out for
/// five minutes, and a failure no longer closes the window, so a stranger who fails attempt after
/// attempt cannot keep the person from pairing (before, three of its failures locked pairing for
/// everyone on the LAN). A window takes at most `maxFailuresPerWindow` failures in all, then
/// closes: attempts from many addresses each still cost the attacker a one-in-a-million guess at
/// the code, and the person opens a new window.
final class PairingCoordinator: Sendable {
    static let maxFailuresPerWindow = 5
    /// Sources remembered at most (the oldest lockout goes first).
    static let maxSources = 256

    private struct State {
        var windowUntil: Date?
        var active: PairingSession?
        var lockouts: [String: PairingLockout] = [:]
        var windowFailures = 0
    }
    private let state = NIOLockedValueBox(State())

    /// Opens the window, or extends one still open (its failures still count toward the cap).
    func openWindow(for seconds: TimeInterval, now: Date = Date()) {
        state.withLockedValue { s in
            if !(s.windowUntil.map { now < $0 } ?? false) { s.windowFailures = 0 }
            s.windowUntil = now.addingTimeInterval(seconds)
        }
    }
    func closeWindow() { state.withLockedValue { $0.windowUntil = nil } }
    var windowCloses: Date? { state.withLockedValue { $0.windowUntil } }

    /// Whether attempts from `source` are locked out now.
    func isLocked(source: String, now: Date = Date()) -> Bool { state.withLockedValue { $0.lockouts[source]?.isLocked(at: now) ?? false } }

    /// How many source addresses are locked out now.
    func lockedSources(now: Date = Date()) -> Int { state.withLockedValue { $0.lockouts.values.filter { $0.isLocked(at: now) }.count } }

    /// Responder: may a pairing handshake from `source` start now? Asked at the preamble, before
    /// any crypto, so it only refuses: ten bytes from a stranger must not stop the pairing in
    /// progress (the code comparison is what defeats a man in the middle, not a race to be first).
    func refusalForIncoming(source: String, now: Date = Date()) -> PairingRefusal? {
        state.withLockedValue { s in
            if s.lockouts[source]?.isLocked(at: now) == true { return .lockedOut }
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

    /// A pairing that completed its handshake ended. A success closes the window; a failure
    /// counts against its source (and the window), and the window stays open for the next attempt.
    func finished(_ session: PairingSession, success: Bool, now: Date = Date()) {
        let source = session.channel.remoteAddress?.ipAddress ?? "?"
        state.withLockedValue { s in
            // Only the pairings we answered count (`begin` registered them); our own attempts
            // at another machine's window are that machine's to count.
            guard s.active === session else { return }
            s.active = nil
            if success {
                s.windowUntil = nil
                s.lockouts[source] = nil
                return
            }
            s.windowFailures += 1
            if s.windowFailures >= Self.maxFailuresPerWindow { s.windowUntil = nil }
            s.lockouts[source, default: PairingLockout()].recordFailure(at: now)
            if s.lockouts.count > Self.maxSources {
                s.lockouts = s.lockouts.filter { $0.value.isLocked(at: now) || $0.key == source }
                while s.lockouts.count > Self.maxSources,
                    let oldest = s.lockouts.min(by: { ($0.value.lockedUntil ?? .distantPast) < ($1.value.lockedUntil ?? .distantPast) })?.key
                {
                    s.lockouts[oldest] = nil
                }
            }
        }
    }
}
