import HandoffAdvert
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore
import HandoffDiscovery
import HandoffLink

/// A peer as the control operations see it: discovered, paired, or both.
struct PeerView: Sendable {
    let name: String
    let trusted: TrustedPeer?
    let discovered: DiscoveredPeer?
    /// A session with it is open (authenticated): it is present.
    let present: Bool
    /// How this machine knows where the peer is: "mdns", "static", "remembered".
    var foundBy: [String] = []
    /// Where the open session goes, and where it comes from on this machine.
    var session: (remote: String, local: String)?
    var sessions = 0
    /// Where to dial it when no session is open and mDNS does not list it.
    var remembered: PeerEndpoint?

    var connected: Bool { present }

    var fingerprint: String? { trusted?.identity.fingerprint }

    /// Where to open a session: the advert's address (IPv4 first; a link-local one with the
    /// interface it was seen on, without which connect(2) fails with EINVAL), else the last-known one.
    var address: (host: String, port: Int)? { endpoint.map { ($0.host, $0.port) } }

    /// The same, as an endpoint (`peers` shows it: a session the peer opened comes from an
    /// ephemeral port, which is no address to give anyone).
    var endpoint: PeerEndpoint? {
        if let d = discovered, let a = d.addresses.first(where: { $0.family == .ipv4 }) ?? d.addresses.first {
            return AdvertAddresses.endpoint(a, port: Int(d.port))
        }
        return remembered
    }
}
