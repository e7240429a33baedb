import HandoffCore

/// How many new addresses a paired peer may make us dial: its hellos may name at most
/// `perMinute` addresses we did not already take from it in the last minute. A peer that opens
/// session after session, each hello with new addresses, would otherwise have us dial a new set
/// at every backoff step and at every stalled session (docs/SECURITY.md, "make us dial what it
/// names"). Addresses it named within the minute pass again freely. Pure state, owned by
/// `PeerReach` (ReachState).
struct ToldBudget {
    static let perMinute = 16
    static let window: ReachTime = 60

    /// By identity id: when each address was first taken, within the window.
    private var taken: [PeerID: [PeerEndpoint: ReachTime]] = [:]

    /// Of `endpoints` (already checked by `ToldAddresses`), those we take now; `refused` counts
    /// the rest.
    mutating func admit(_ endpoints: [PeerEndpoint], peerID: PeerID, at now: ReachTime) -> (taken: [PeerEndpoint], refused: Int) {
        var mine = (taken[peerID] ?? [:]).filter { now - $0.value < Self.window }
        var out: [PeerEndpoint] = []
        var refused = 0
        for e in endpoints {
            if mine[e] != nil {
                out.append(e)
            } else if mine.count < Self.perMinute {
                mine[e] = now
                out.append(e)
            } else {
                refused += 1
            }
        }
        taken[peerID] = mine.isEmpty ? nil : mine
        return (out, refused)
    }

    /// A peer unpaired: nothing kept.
    mutating func forget(peerID: PeerID) { taken[peerID] = nil }
}
