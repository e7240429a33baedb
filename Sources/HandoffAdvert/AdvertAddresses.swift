import HandoffCore
import HandoffDiscovery

/// Which of a listed advert's addresses are worth dialling. An IPv6 link-local address means
/// something only on the link it was seen on: when the advert's IPv4 addresses are all on other
/// networks, it came through a router (an Avahi reflector), and its link-local addresses are
/// another link's, so they are left out.
public enum AdvertAddresses {
    public static func usable(_ addresses: [PeerAddress], local: [InterfaceAddress]) -> [PeerAddress] {
        let v4 = addresses.filter { $0.family == .ipv4 }
        let onLink = v4.contains { a in local.contains { $0.sameIPv4Network(as: a.address) } }
        guard !v4.isEmpty, !onLink else { return addresses }
        return addresses.filter { !isLinkLocal($0) }
    }

    /// fe80::/10.
    public static func isLinkLocal(_ a: PeerAddress) -> Bool {
        guard a.family == .ipv6, let first = a.address.split(separator: ":", omittingEmptySubsequences: false).first,
            let group = UInt16(first, radix: 16)
        else { return false }
        return group & 0xffc0 == 0xfe80
    }

    /// Where to dial it: a link-local address with the interface it was seen on as its zone.
    public static func endpoint(_ a: PeerAddress, port: Int) -> PeerEndpoint {
        PeerEndpoint(host: isLinkLocal(a) && a.interfaceIndex > 0 ? "\(a.address)%\(a.interfaceIndex)" : a.address, port: port)
    }
}
