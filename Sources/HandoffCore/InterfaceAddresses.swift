import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One address of this machine's interfaces, from getifaddrs(3).
public struct InterfaceAddress: Sendable, Hashable {
    /// Numeric text; IPv6 link-local ones carry their zone (`fe80::1%eth0`).
    public let text: String
    public let interfaceIndex: Int32
    public let isIPv6: Bool

    /// The text without its zone.
    public var bare: String { String(text.split(separator: "%", maxSplits: 1).first ?? Substring(text)) }
}

public enum InterfaceAddresses {
    /// Every address of an interface that is up, loopback excluded; nil when getifaddrs fails
    /// (it needs a netlink socket, which a sandbox may refuse).
    public static func current() -> [InterfaceAddress]? {
        var head: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&head) == 0 else { return nil }
        guard let first = head else { return [] }
        defer { freeifaddrs(head) }
        var found: [InterfaceAddress] = []
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
            let index = entry.pointee.ifa_name.map { Int32(bitPattern: if_nametoindex($0)) } ?? 0
            found.append(InterfaceAddress(text: String(cString: buffer), interfaceIndex: index, isIPv6: family == AF_INET6))
        }
        return found
    }
}
