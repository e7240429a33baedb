/// One address a peer was resolved to, with the interface it was seen on (needed to connect to an
/// IPv6 link-local address).
public struct PeerAddress: Sendable, Hashable, Comparable, CustomStringConvertible {
    public enum Family: String, Sendable { case ipv4, ipv6 }

    public let address: String
    public let interfaceIndex: Int32
    public let family: Family

    public init(address: String, interfaceIndex: Int32, family: Family) {
        self.address = address
        self.interfaceIndex = interfaceIndex
        self.family = family
    }

    public static func < (a: PeerAddress, b: PeerAddress) -> Bool {
        (a.family == .ipv4 ? 0 : 1, a.address, a.interfaceIndex) < (b.family == .ipv4 ? 0 : 1, b.address, b.interfaceIndex)
    }

    public var description: String { family == .ipv6 ? "[\(address)%\(interfaceIndex)]" : address }
}

/// Another handoffd, as discovery sees it: resolved, with a well-formed handoffd TXT.
public struct DiscoveredPeer: Sendable, Equatable {
    public let name: String
    public var hostName: String
    public var port: UInt16
    /// IPv4 first, then IPv6.
    public var addresses: [PeerAddress]
    /// The TXT last seen, `v` included. Two records may coexist for a while after an update:
    /// the layer above keeps the newer one by what is sealed in it.
    public var txt: TXTRecord

    public init(name: String, hostName: String, port: UInt16, addresses: [PeerAddress], txt: TXTRecord) {
        (self.name, self.hostName, self.port, self.addresses, self.txt) = (name, hostName, port, addresses, txt)
    }
}
