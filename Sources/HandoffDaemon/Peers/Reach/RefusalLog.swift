import HandoffCore
/// What a peer had refused, said once per peer and reason per interval with how many there were:
/// a peer that sends 10,000 bad messages makes one log line a minute, not 10,000. Pure state; the
/// caller passes the time and writes the line it is given.
struct RefusalLog {
    static let interval: Duration = .seconds(60)

    private var open: [Key: (since: ContinuousClock.Instant, count: Int)] = [:]

    struct Key: Hashable {
        let peerID: PeerID
        let reason: String
    }

    /// Counts one refusal; returns how many to report now (this one and those held back since the
    /// last line), or nil while the interval runs.
    mutating func note(peerID: PeerID, reason: String, at now: ContinuousClock.Instant) -> Int? {
        let key = Key(peerID: peerID, reason: reason)
        guard let entry = open[key], now - entry.since < Self.interval else {
            let held = open[key]?.count ?? 0
            open[key] = (now, 0)
            // Entries of peers long quiet go, so the table holds only the last interval's.
            if open.count > 1024 { open = open.filter { now - $0.value.since < Self.interval } }
            return held + 1
        }
        open[key] = (entry.since, entry.count + 1)
        return nil
    }
}
