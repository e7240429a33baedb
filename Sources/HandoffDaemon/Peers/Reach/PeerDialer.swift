#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// When to dial each paired peer (or configured address) that has no session: at once at start,
/// then with a bounded, jittered backoff while it is unreachable. A network change, a resume, or
/// the peer's advert appearing dials again at once. Pure state, kept by Peers.
struct PeerDialer {
    static let firstDelay: Double = 1
    static let maxDelay: Double = 60

    private struct Backoff {
        var failures: Int
        var next: ReachTime
    }

    /// By dial key (a peer's identity id, or "static:" and an address). No entry: due now.
    private var backoff: [String: Backoff] = [:]
    /// Keys with attempts in flight, and how many of this round's attempts are still out.
    private var rounds: [String: (outstanding: Int, succeeded: Bool)] = [:]

    /// The delay after `failures` failed rounds, spread by `jitter` (0...1) to ±20 %.
    static func delay(failures: Int, jitter: Double) -> Double {
        let base = min(maxDelay, firstDelay * pow(2, Double(max(0, failures - 1))))
        return base * (0.8 + 0.4 * jitter)
    }

    /// Which of `keys` are due at `now` (none in flight, backoff elapsed).
    func due(_ keys: [String], at now: ReachTime) -> [String] {
        keys.filter { rounds[$0] == nil && (backoff[$0].map { $0.next <= now } ?? true) }
    }

    /// When `key` is next due: at `now` or later; nil while a round of its dials is out.
    func nextDue(_ key: String, at now: ReachTime) -> ReachTime? {
        guard rounds[key] == nil else { return nil }
        return max(now, backoff[key]?.next ?? now)
    }

    /// A round of `attempts` parallel dials starts for `key`.
    mutating func begin(_ key: String, attempts: Int) { rounds[key] = (attempts, false) }

    var inFlight: Int { rounds.count }

    /// One attempt of the round ended; returns true when it was the round's first success (the
    /// session to keep; later ones are closed).
    mutating func attempted(_ key: String, ok: Bool, at now: ReachTime, jitter: Double) -> Bool {
        guard var round = rounds[key] else { return false }
        let first = ok && !round.succeeded
        round.succeeded = round.succeeded || ok
        round.outstanding -= 1
        if round.outstanding > 0 {
            rounds[key] = round
        } else {
            rounds[key] = nil
            if round.succeeded {
                backoff[key] = nil
            } else {
                let failures = (backoff[key]?.failures ?? 0) + 1
                backoff[key] = Backoff(failures: failures, next: now + Self.delay(failures: failures, jitter: jitter))
            }
        }
        return first
    }

    /// The peer said goodbye: it is stopping, so the next try waits a first delay.
    mutating func leftNow(_ key: String, at now: ReachTime, jitter: Double) {
        backoff[key] = Backoff(failures: 1, next: now + Self.delay(failures: 1, jitter: jitter))
    }

    /// Dial `key` at the next look (its advert appeared, or it gave a new address).
    mutating func reset(_ key: String) { backoff[key] = nil }

    /// Dial everything at the next look (the network changed, the machine woke up).
    mutating func resetAll() { backoff = [:] }
}

/// A point on the reach's own clock, in seconds: dial backoffs, pings and stalled sessions are
/// timed on it.
typealias ReachTime = Double

/// CLOCK_BOOTTIME: it never steps, and it counts the time the machine slept. The wall clock
/// steps (NTP, a person setting the time, a virtual machine restored): stepped back an hour, it
/// held every ping back by an hour, and a gone peer stayed present; stepped forward, every
/// backoff ended at once (Tests/Rigs/chaos.sh jumps a daemon's wall clock both ways).
enum ReachClock {
    static func now() -> ReachTime {
        var t = timespec()
        clock_gettime(CLOCK_BOOTTIME, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
