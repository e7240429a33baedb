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
    var lastPing: [PeerID: ReachTime] = [:]
    var pinging: Set<PeerID> = []
    /// By identity id: where the peer said, in its hello, that its link listens.
    var told: [PeerID: [PeerEndpoint]] = [:]
    /// How many new addresses from hellos each peer may still make us dial this minute.
    var toldBudget = ToldBudget()
    /// By identity id: where its listed advert says it listens (`ListingNews.located`).
    var advertised: [PeerID: [PeerEndpoint]] = [:]
    /// Configured addresses, and the paired peer found at each.
    var staticOwner: [PeerEndpoint: PeerID] = [:]
    /// By identity id: what its hello declared.
    var capabilities: [PeerID: PeerCapabilities] = [:]
    /// By identity id: a session whose ping went unanswered, and since when the peer is being
    /// dialled afresh to replace it (`PeerReach.suspectStalled`).
    var stalled: [PeerID: (session: LinkSession, since: ReachTime)] = [:]

    /// Pings are due on sessions not pinged for `interval`, one at a time per peer.
    mutating func duePings(among connected: Set<PeerID>, at now: ReachTime, interval: TimeInterval) -> [PeerID] {
        let due = connected.filter { !pinging.contains($0) && (lastPing[$0].map { now - $0 >= interval } ?? true) }.sorted()
        for id in due {
            pinging.insert(id)
            lastPing[id] = now
        }
        return due
    }

    /// The dial and ping loop looks again within this when something is under way (a dial or a
    /// ping out, a session retired or silent, a peer due with nowhere to dial yet)...
    static let shortLook: TimeInterval = 0.5
    /// ...and at most this long after its last look when nothing is: an idle daemon's loop woke
    /// every half second to find nothing due (a ping every two seconds per session).
    static let longLook: TimeInterval = 2

    /// When the loop must look again after a look at `now`: the next ping due on a `connected`
    /// session, or the next dial of an `unconnected` key (a peer's id or a configured address's),
    /// whichever comes first; within `shortLook` while anything is under way (`settled` false:
    /// a retired session waits to close), as the loop always looked before.
    func nextLook(connected: Set<PeerID>, unconnected: [String], settled: Bool, pingInterval: TimeInterval, at now: ReachTime) -> ReachTime {
        let soon = now + Self.shortLook
        guard settled, stalled.isEmpty else { return soon }
        var next = now + Self.longLook
        for id in connected {
            // Never pinged, or a ping still out when its next is due: as before.
            let due = lastPing[id].map { $0 + pingInterval } ?? now
            next = min(next, due > now ? due : soon)
        }
        for key in unconnected {
            // A round out, or due now with nowhere to dial (no address yet): as before.
            guard let due = dialer.nextDue(key, at: now), due > now else {
                next = min(next, soon)
                continue
            }
            next = min(next, due)
        }
        return next
    }

    /// Where a paired peer may be: its last-known endpoints (newest first), its advert's
    /// addresses, and what it told us in its last hello; at most six, no duplicates.
    func candidates(remembered: [PeerEndpoint], peerID: PeerID) -> [PeerEndpoint] {
        let all = remembered + (advertised[peerID] ?? []) + (told[peerID] ?? [])
        var seen: Set<PeerEndpoint> = []
        return Array(all.filter { seen.insert($0).inserted }.prefix(6))
    }

    /// A peer unpaired: nothing of what it said is kept.
    mutating func forget(peerID: PeerID) {
        capabilities[peerID] = nil
        told[peerID] = nil
        advertised[peerID] = nil
        lastPing[peerID] = nil
        stalled[peerID] = nil
        toldBudget.forget(peerID: peerID)
        staticOwner = staticOwner.filter { $0.value != peerID }
    }
}
