#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// The activities we served to each peer by `fetch`, so that a `continued` report is believed
/// only from a peer that fetched that activity, and only once: before, any paired peer could tell
/// an app that its activity was continued when nobody had. Bounded: the oldest go first, and an
/// entry lapses after `lifetime` (a continuation is reported right after its fetch). Pure state,
/// kept by Activities; the caller passes the time.
struct ServedFetches {
    static let capacity = 1_024
    static let lifetime: TimeInterval = 600

    struct Key: Hashable {
        let peerID: PeerID
        let activityID: UUID
    }

    private var servedAt: [Key: Date] = [:]

    mutating func served(_ activityID: UUID, to peerID: PeerID, at now: Date) {
        if servedAt.count >= Self.capacity {
            servedAt = servedAt.filter { now.timeIntervalSince($0.value) < Self.lifetime }
            if servedAt.count >= Self.capacity, let oldest = servedAt.min(by: { $0.value < $1.value })?.key { servedAt[oldest] = nil }
        }
        servedAt[Key(peerID: peerID, activityID: activityID)] = now
    }

    /// True if the activity was served to the peer within `lifetime` (and not reported since).
    func wasServed(_ activityID: UUID, to peerID: PeerID, at now: Date) -> Bool {
        servedAt[Key(peerID: peerID, activityID: activityID)].map { now.timeIntervalSince($0) < Self.lifetime } ?? false
    }

    /// True (once) if the activity was served to the peer within `lifetime`.
    mutating func reported(_ activityID: UUID, by peerID: PeerID, at now: Date) -> Bool {
        guard let at = servedAt.removeValue(forKey: Key(peerID: peerID, activityID: activityID)) else { return false }
        return now.timeIntervalSince(at) < Self.lifetime
    }
}
