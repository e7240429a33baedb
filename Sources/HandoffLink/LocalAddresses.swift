#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// This machine's own addresses now, from getifaddrs(3): what a peer is told in our hello, and
/// what tells whether a session's local end still exists after the network changed.
public enum LocalAddresses {
    /// Every address of an interface that is up, loopback excluded. IPv6 link-local ones carry
    /// their zone (`fe80::1%eth0`): without it they cannot be dialled. nil when getifaddrs fails
    /// (it needs a netlink socket, which a sandbox may refuse).
    public static func current() -> Set<String>? { InterfaceAddresses.current().map { Set($0.map(\.text)) } }

    /// The ones worth telling a peer: link-local IPv6 zones name our interfaces, not the peer's.
    public static func shareable() -> [String] {
        (current() ?? []).filter { !$0.lowercased().hasPrefix("fe80") }.sorted()
    }
}
