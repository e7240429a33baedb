#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// One address of this machine's interfaces, from getifaddrs(3).
public struct InterfaceAddress: Sendable, Hashable {
    /// Numeric text; IPv6 link-local ones carry their zone (`fe80::1%eth0`).
    public let text: String
    public let interfaceIndex: Int32
    public let isIPv6: Bool
    /// The length of the network's prefix (from the netmask), when the interface has one.
    public let prefixLength: Int?

    public init(text: String, interfaceIndex: Int32, isIPv6: Bool, prefixLength: Int? = nil) {
        (self.text, self.interfaceIndex, self.isIPv6, self.prefixLength) = (text, interfaceIndex, isIPv6, prefixLength)
    }

    /// `other` (an IPv4 address) is on this address's network.
    public func sameIPv4Network(as other: String) -> Bool {
        guard !isIPv6, let prefix = prefixLength, let a = Self.ipv4(bare), let b = Self.ipv4(other) else { return false }
        let mask: UInt32 = prefix == 0 ? 0 : ~UInt32(0) << UInt32(32 - min(prefix, 32))
        return a & mask == b & mask
    }

    public static func ipv4(_ text: String) -> UInt32? {
        var a = in_addr()
        guard inet_pton(AF_INET, text, &a) == 1 else { return nil }
        return UInt32(bigEndian: a.s_addr)
    }

    /// The text without its zone.
    public var bare: String { String(text.split(separator: "%", maxSplits: 1).first ?? Substring(text)) }
}

public enum InterfaceAddresses {
    /// The number of leading one bits of a netmask.
    static func prefix(of mask: UnsafeMutablePointer<sockaddr>, family: Int32) -> Int {
        if family == AF_INET {
            return mask.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { (~UInt32(bigEndian: $0.pointee.sin_addr.s_addr)).leadingZeroBitCount }
        }
        return mask.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { p in
            withUnsafeBytes(of: p.pointee.sin6_addr) { bytes in bytes.reduce(0) { $0 + $1.nonzeroBitCount } }
        }
    }

    private static let cache = InterfaceAddressCache()

    /// Every address of an interface that is up, loopback excluded; nil when getifaddrs fails
    /// (it needs a netlink socket, which a sandbox may refuse). Read once per change while a
    /// watcher reports the changes (`watching`, `changed`), else at every call.
    public static func current() -> [InterfaceAddress]? { cache.addresses(reading: read) }

    /// The addresses may have changed (the kernel said so): the next `current()` reads them.
    public static func changed() { cache.changed() }

    /// A watcher of the kernel's address notifications started (true: it calls `changed()` at
    /// each one) or stopped (false). Reads are kept while at least one runs.
    public static func watching(_ on: Bool) { cache.watching(on) }

    /// getifaddrs(3), walked.
    static func read() -> [InterfaceAddress]? {
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
            found.append(
                InterfaceAddress(
                    text: String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), interfaceIndex: index,
                    isIPv6: family == AF_INET6,
                    prefixLength: entry.pointee.ifa_netmask.map { prefix(of: $0, family: family) }))
        }
        return found
    }

    /// The address this machine sends from toward `destination` (numeric IPv4 or IPv6), as the
    /// routing table chooses it: a UDP socket is connected, which sends nothing, and asked its
    /// name. nil when there is no route.
    public static func source(toward destination: String) -> String? {
        // getaddrinfo with numeric hints parses either family into a sockaddr of the right size.
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard !destination.isEmpty, getaddrinfo(destination, "53", &hints, &found) == 0, let info = found else { return nil }
        defer { freeaddrinfo(found) }
        let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else { return nil }
        var local = sockaddr_storage()
        var localLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &localLength) }
        }
        guard named == 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let ok = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, localLength, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST)
            }
        }
        guard ok == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
