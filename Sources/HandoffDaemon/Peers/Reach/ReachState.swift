#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore
import HandoffLink
import HandoffProtocol

/// How this machine reaches each paired peer: when to dial it and where, when to ping its
/// session, and what it said in its hello on that session. Pure state, owned by `PeerReach`.
struct ReachState {
    var dialer = PeerDialer()
    /// By identity id: when the current session was last pinged, and pings out now.
    var lastPing: [String: ReachTime] = [:]
    var pinging: Set<String> = []
    /// By identity id: where the peer said, in its hello, that its link listens.
    var told: [String: [PeerEndpoint]] = [:]
    /// How many new addresses from hellos each peer may still make us dial this minute.
    var toldBudget = ToldBudget()
    /// By identity id: where its listed advert says it listens (`ListingNews.located`).
    var advertised: [String: [PeerEndpoint]] = [:]
    /// Configured addresses, and the paired peer found at each.
    var staticOwner: [PeerEndpoint: String] = [:]
    /// By identity id: what its hello declared.
    var capabilities: [String: PeerCapabilities] = [:]
    /// By identity id: a session whose ping went unanswered, and since when the peer is being
    /// dialled afresh to replace it (`PeerReach.suspectStalled`).
    var stalled: [String: (session: LinkSession, since: ReachTime)] = [:]

    /// Pings are due on sessions not pinged for `interval`, one at a time per peer.
    mutating func duePings(among connected: Set<String>, at now: ReachTime, interval: TimeInterval) -> [String] {
        let due = connected.filter { !pinging.contains($0) && (lastPing[$0].map { now - $0 >= interval } ?? true) }.sorted()
        for id in due {
            pinging.insert(id)
            lastPing[id] = now
        }
        return due
    }

    /// Where a paired peer may be: its last-known endpoints (newest first), its advert's
    /// addresses, and what it told us in its last hello; at most six, no duplicates.
    func candidates(remembered: [PeerEndpoint], peerID: String) -> [PeerEndpoint] {
        let all = remembered + (advertised[peerID] ?? []) + (told[peerID] ?? [])
        var seen: Set<PeerEndpoint> = []
        return Array(all.filter { seen.insert($0).inserted }.prefix(6))
    }

    /// A peer unpaired: nothing of what it said is kept.
    mutating func forget(peerID: String) {
        capabilities[peerID] = nil
        told[peerID] = nil
        advertised[peerID] = nil
        lastPing[peerID] = nil
        stalled[peerID] = nil
        toldBudget.forget(peerID: peerID)
        staticOwner = staticOwner.filter { $0.value != peerID }
    }
}
