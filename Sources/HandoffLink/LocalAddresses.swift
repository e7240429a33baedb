import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// This machine's own addresses now, from getifaddrs(3): what a peer is told in our hello, and
/// what tells whether a session's local end still exists after the network changed.
public enum LocalAddresses {
    /// Every address of an interface that is up, loopback excluded. IPv6 link-local ones carry
    /// their zone (`fe80::1%eth0`): without it they cannot be dialled. nil when getifaddrs fails
    /// (it needs a netlink socket, which a sandbox may refuse).
    public static func current() -> Set<String>? {
        var head: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&head) == 0 else { return nil }
        guard let first = head else { return [] }
        defer { freeifaddrs(head) }
        var found: Set<String> = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            let flags = Int32(entry.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0, let sa = entry.pointee.ifa_addr else { continue }
            let family = Int32(sa.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            guard getnameinfo(sa, length, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            found.insert(String(cString: buffer))
        }
        return found
    }

    /// The ones worth telling a peer: link-local IPv6 zones name our interfaces, not the peer's.
    public static func shareable() -> [String] {
        (current() ?? []).filter { !$0.lowercased().hasPrefix("fe80") }.sorted()
    }
}
