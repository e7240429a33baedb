import Foundation

/// What a caller inside the daemon can wait for, with a deadline, until the daemon notices it.
enum WakeReason: Hashable, Sendable {
    /// The Avahi client is up (start-up's readiness).
    case avahiUp
    /// Discovery lists the peer with this key fingerprint.
    case listed(fingerprint: String)
}

/// The callers waiting on the daemon actor, each until its reason comes or its deadline passes
/// (`Daemon.wait(for:atMost:)`). Kept in the actor's state, so that checking a condition and
/// starting to wait for it happen without a suspension between them, and no wakeup is missed.
struct Wakeups {
    private var waiting: [UUID: (reason: WakeReason, continuation: CheckedContinuation<Void, Never>)] = [:]

    func count(_ reason: WakeReason) -> Int { waiting.values.count { $0.reason == reason } }

    mutating func add(_ token: UUID, _ reason: WakeReason, _ continuation: CheckedContinuation<Void, Never>) {
        waiting[token] = (reason, continuation)
    }

    /// Ends one wait (its deadline passed); nothing if it already ended.
    mutating func wake(_ token: UUID) { waiting.removeValue(forKey: token)?.continuation.resume() }

    /// Ends every wait for `reason`.
    mutating func wake(_ reason: WakeReason) {
        for (token, w) in waiting where w.reason == reason {
            waiting[token] = nil
            w.continuation.resume()
        }
    }
}
