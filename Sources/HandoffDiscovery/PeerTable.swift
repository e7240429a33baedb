/// The browse side as a pure state machine: resolved instances per (interface, protocol) merged
/// into one peer per name, the TXT last seen kept, foreign publishers set apart.
public struct PeerTable: Sendable {
    public struct InstanceKey: Sendable, Hashable {
        public let name: String
        public let interfaceIndex: Int32
        public let protocolFamily: Int32
        public init(name: String, interfaceIndex: Int32, protocolFamily: Int32) {
            self.name = name
            self.interfaceIndex = interfaceIndex
            self.protocolFamily = protocolFamily
        }
    }

    private var peersByName: [String: DiscoveredPeer] = [:]
    /// Every resolved instance (ours excluded), handoffd or not, with the address it gave.
    private var instances: [String: [InstanceKey: PeerAddress?]] = [:]
    private var foreign: Set<String> = []

    public init() {}

    public var peers: [DiscoveredPeer] { peersByName.values.sorted { $0.name < $1.name } }
    public func peer(named name: String) -> DiscoveredPeer? { peersByName[name] }
    public func isForeign(_ name: String) -> Bool { foreign.contains(name) }

    /// A resolver found an instance. Browser NEW events are not trusted: only this adds a peer.
    public mutating func resolved(
        _ key: InstanceKey, hostName: String, address: PeerAddress?, port: UInt16,
        txt strings: [[UInt8]], isOwn: Bool
    ) -> [DiscoveryEvent] {
        if isOwn { return [] }
        instances[key.name, default: [:]][key] = address
        let txt = TXTRecord(received: strings)
        if let reason = HandoffTXT.foreignReason(txt) {
            guard peersByName[key.name] == nil, foreign.insert(key.name).inserted else { return [] }
            return [.foreignService(name: key.name, reason: reason.text)]
        }
        foreign.remove(key.name)
        guard var peer = peersByName[key.name] else {
            let peer = DiscoveredPeer(
                name: key.name, hostName: hostName, port: port,
                addresses: address.map { [$0] } ?? [], txt: txt)
            peersByName[key.name] = peer
            return [.peerAppeared(peer)]
        }
        let before = peer
        peer.hostName = hostName
        peer.port = port
        if let address, !peer.addresses.contains(address) { peer.addresses = (peer.addresses + [address]).sorted() }
        peer.txt = txt
        peersByName[key.name] = peer
        return peer == before ? [] : [.peerChanged(peer)]
    }

    /// A TXT record seen by the record browser. Old and new records coexist for a while, so this
    /// may be the older one: the layer above tells by what is sealed in it.
    public mutating func txtSeen(name: String, strings: [[UInt8]]) -> [DiscoveryEvent] {
        guard var peer = peersByName[name] else { return [] }
        let txt = TXTRecord(received: strings)
        guard HandoffTXT.foreignReason(txt) == nil, txt != peer.txt else { return [] }
        peer.txt = txt
        peersByName[name] = peer
        return [.peerChanged(peer)]
    }

    /// The browser reported an instance gone.
    public mutating func removed(_ key: InstanceKey) -> [DiscoveryEvent] {
        guard let address = instances[key.name]?.removeValue(forKey: key) else { return [] }
        if instances[key.name]?.isEmpty == true {
            instances[key.name] = nil
            foreign.remove(key.name)
            return peersByName.removeValue(forKey: key.name) == nil ? [] : [.peerRemoved(name: key.name)]
        }
        guard var peer = peersByName[key.name], let address else { return [] }
        let stillUsed = instances[key.name]!.values.contains { $0 == address }
        if stillUsed { return [] }
        peer.addresses.removeAll { $0 == address }
        peersByName[key.name] = peer
        return [.peerChanged(peer)]
    }

    /// The Avahi client is gone: nothing it reported can be trusted any more.
    public mutating func removeAll() -> [DiscoveryEvent] {
        let names = peersByName.keys.sorted()
        peersByName = [:]
        instances = [:]
        foreign = []
        return names.map { .peerRemoved(name: $0) }
    }
}
