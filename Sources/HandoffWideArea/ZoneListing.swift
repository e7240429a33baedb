import HandoffDiscovery

/// What the zone lists, as the browser last read it, and the events a new reading makes. Pure.
struct ZoneListing {
    private(set) var peers: [String: DiscoveredPeer] = [:]
    private var foreign: Set<String> = []

    /// A complete reading of the zone's instances (ours left out).
    mutating func read(_ found: [String: DiscoveredPeer]) -> [DiscoveryEvent] {
        var events: [DiscoveryEvent] = []
        for name in found.keys.sorted() {
            let peer = found[name]!
            if let reason = HandoffTXT.foreignReason(peer.txt) {
                if peers[name] == nil, foreign.insert(name).inserted { events.append(.foreignService(name: name, reason: reason.text)) }
                continue
            }
            foreign.remove(name)
            let before = peers.updateValue(peer, forKey: name)
            if before == nil { events.append(.peerAppeared(peer)) } else if before != peer { events.append(.peerChanged(peer)) }
        }
        for name in peers.keys.sorted() where found[name] == nil || foreign.contains(name) {
            peers[name] = nil
            events.append(.peerRemoved(name: name))
        }
        foreign.formIntersection(found.keys)
        return events
    }
}
