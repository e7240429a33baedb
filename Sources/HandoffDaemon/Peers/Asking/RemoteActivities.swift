#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffAdvert
import HandoffProtocol
import HandoffCore

/// A paired peer's current activities as this machine last learnt them, and what tells whether
/// they are still what the peer offers.
struct RemoteActivities: Sendable, Equatable {
    var items: [ActivitySummary] = []
    /// The session the items came over (a `changed` push or a list answer), by its serial: while
    /// it stays open, the peer pushes every change on it.
    var session: UInt64?
    /// What the peer's advert offers (sealed tokens opened with its key): activity and version,
    /// of the types this machine declares.
    var advertised: Set<String>?
    /// How many pushes (`changed`, `invalidated`) came from the peer: a list answer is kept only
    /// if none came while it was asked (`RemoteDirectory.answered`).
    var pushes = 0

    /// The items are what the advert says.
    var matchesAdvert: Bool { advertised == Set(items.map { Self.key($0.activityID, UInt32(truncatingIfNeeded: $0.version)) }) }

    static func key(_ id: UUID, _ version: UInt32) -> String { "\(id.canonicalString)/\(version)" }
}

/// Every paired peer's activities as this machine holds them. Pure state, owned by `PeerAsking`.
struct RemoteDirectory {
    /// By identity id.
    private(set) var remote: [PeerID: RemoteActivities] = [:]

    /// The advert's sealed tokens, opened with our copy of the peer's advertising key: what it
    /// offers of the types we declare (`declared`: their type hashes).
    mutating func advertRead(_ tokens: [AdvertTXT.Token], peerID: PeerID, declared: Set<[UInt8]>) {
        let advertised = Set(tokens.filter { declared.contains($0.typeHash) }.map { RemoteActivities.key($0.activityID, $0.version) })
        remote[peerID, default: RemoteActivities()].advertised = advertised
    }

    /// The peer's activities, as it pushed them on `session`.
    mutating func pushed(_ items: [ActivitySummary], peerID: PeerID, session: UInt64?) {
        remote[peerID, default: RemoteActivities()].items = items
        remote[peerID]?.session = session
        remote[peerID]?.pushes += 1
    }

    mutating func invalidated(_ activityID: UUID, peerID: PeerID) {
        remote[peerID]?.items.removeAll { $0.activityID == activityID }
        remote[peerID]?.pushes += 1
    }

    /// What to give `answered` of a list asked now.
    func mark(_ peerID: PeerID) -> Int { remote[peerID]?.pushes ?? 0 }

    /// The peer's answer to a list asked at `mark`, kept unless a push came meanwhile. A push that
    /// came while the answer was on its way is as new as the answer or newer, or else another push
    /// follows it: the peer pushes every change after it happens. The answer's continuation and
    /// the push reach `PeerAsking` by different hops, so either may come first; an answer stored
    /// after a newer push stayed current as long as the session stayed open (Tests/Rigs/chaos.sh saw
    /// a list from before the peer's last publish held 10 s after the wire healed).
    mutating func answered(_ items: [ActivitySummary], peerID: PeerID, session: UInt64?, mark: Int) {
        guard self.mark(peerID) == mark else { return }
        remote[peerID, default: RemoteActivities()].items = items
        remote[peerID]?.session = session
    }

    /// What we hold of a peer's activities, if it is still what the peer offers: the session they
    /// came over is the one open now, or (no session open) the advert says the same. With a
    /// session open, an advert is no proof: announcements lost on a bad wire leave the old TXT in
    /// every cache (Tests/Rigs/chaos.sh found a list 10 s stale after an outage), and asking on the
    /// open session costs one round trip.
    func fresh(_ peerID: PeerID, openSession: UInt64?) -> [ActivitySummary]? {
        guard let r = remote[peerID] else { return nil }
        if let openSession { return r.session == openSession ? r.items : nil }
        return r.matchesAdvert ? r.items : nil
    }

    /// A peer unpaired: nothing of what it said is kept.
    mutating func forget(peerID: PeerID) { remote[peerID] = nil }
}
