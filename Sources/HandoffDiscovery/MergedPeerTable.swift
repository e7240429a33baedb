/// Peers as several discovery sources list them (mDNS on the link, unicast DNS-SD in a zone),
/// merged by instance name: a peer found both ways is one peer, with the addresses of both, and
/// it is gone only when every source has lost it. Pure state.
public struct MergedPeerTable: Sendable {
    private var bySource: [Int: [String: DiscoveredPeer]] = [:]
    /// The source that reported each name last: its TXT and port are the newest.
    private var latest: [String: Int] = [:]
    private var merged: [String: DiscoveredPeer] = [:]

    public init() {}

    public var peers: [DiscoveredPeer] { merged.values.sorted { $0.name < $1.name } }

    /// The sources that list `name` now (0: the link's mDNS; 1: a DNS zone, when configured).
    public func sources(listing name: String) -> [Int] { bySource.filter { $0.value[name] != nil }.keys.sorted() }

    /// What `event` from `source` changes of the merged view.
    public mutating func apply(_ event: DiscoveryEvent, from source: Int) -> [DiscoveryEvent] {
        switch event {
        case .peerAppeared(let p), .peerChanged(let p):
            bySource[source, default: [:]][p.name] = p
            latest[p.name] = source
            return remerge(p.name)
        case .peerRemoved(let name):
            guard bySource[source]?.removeValue(forKey: name) != nil else { return [] }
            if latest[name] == source { latest[name] = bySource.first { $0.value[name] != nil }?.key }
            return remerge(name)
        default:
            return [event]
        }
    }

    private mutating func remerge(_ name: String) -> [DiscoveryEvent] {
        let listings = bySource.keys.sorted().compactMap { bySource[$0]?[name] }
        guard let newest = latest[name].flatMap({ bySource[$0]?[name] }) ?? listings.first else {
            return merged.removeValue(forKey: name) == nil ? [] : [.peerRemoved(name: name)]
        }
        var peer = newest
        peer.addresses = Array(Set(listings.flatMap(\.addresses))).sorted()
        let before = merged[name]
        merged[name] = peer
        if before == nil { return [.peerAppeared(peer)] }
        return before == peer ? [] : [.peerChanged(peer)]
    }
}
