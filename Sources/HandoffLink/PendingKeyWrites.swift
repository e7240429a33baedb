import HandoffCore

import HandoffAdvert
/// The advertising keys peers sent that wait to be written: one slot per peer, the latest key
/// wins, and a peer's key is written at most once per `interval`. Pure state, kept by
/// LinkEndpoint under its lock; the caller passes the time.
struct PendingKeyWrites {
    static let interval: Duration = .seconds(1)

    private var latest: [PeerID: AdvertisingKey] = [:]
    private var scheduled: Set<PeerID> = []
    /// One entry per paired peer that ever sent a key (only authenticated peers send them).
    private var lastWrite: [PeerID: ContinuousClock.Instant] = [:]

    /// Notes a key; returns how long to wait before writing it when no write is scheduled for
    /// this peer yet (the caller schedules one), nil when one is (it will take this key).
    mutating func offer(_ key: AdvertisingKey, from peerID: PeerID, at now: ContinuousClock.Instant) -> Duration? {
        latest[peerID] = key
        guard scheduled.insert(peerID).inserted else { return nil }
        guard let last = lastWrite[peerID] else { return .zero }
        return max(.zero, Self.interval - (now - last))
    }

    /// The key to write now, if one waits.
    mutating func take(_ peerID: PeerID, at now: ContinuousClock.Instant) -> AdvertisingKey? {
        lastWrite[peerID] = now
        return latest.removeValue(forKey: peerID)
    }

    /// The write is done; true if a newer key came meanwhile (another write is due in `interval`).
    mutating func written(_ peerID: PeerID) -> Bool {
        if latest[peerID] != nil { return true }
        scheduled.remove(peerID)
        return false
    }
}
