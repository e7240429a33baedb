#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Where a peer's link listens: an address (IPv4, or IPv6 with its zone for a link-local one)
/// and a port. What the trust store remembers and what the dialer tries; never a reason to trust.
public struct PeerEndpoint: Sendable, Hashable, CustomStringConvertible {
    public let host: String
    public let port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `host`, `host:port`, `[v6]:port` or a bare IPv6 address; `defaultPort` when none is given.
    /// nil for an empty host or a port outside 1...65535.
    public init?(parsing text: String, defaultPort: Int) {
        let t = text.trimmingSpaces
        var host = t
        var port = defaultPort
        if t.hasPrefix("[") {
            guard let close = t.firstIndex(of: "]") else { return nil }
            host = String(t[t.index(after: t.startIndex)..<close])
            let rest = t[t.index(after: close)...]
            if !rest.isEmpty {
                guard rest.first == ":", let p = Int(rest.dropFirst()) else { return nil }
                port = p
            }
        } else if t.filter({ $0 == ":" }).count == 1, let colon = t.firstIndex(of: ":") {
            host = String(t[..<colon])
            guard let p = Int(t[t.index(after: colon)...]) else { return nil }
            port = p
        }
        guard !host.isEmpty, (1...65_535).contains(port), !host.contains(where: { $0 == " " || $0 == "/" }) else { return nil }
        self.init(host: host, port: port)
    }

    public var isIPv6: Bool { host.contains(":") }

    /// The text is an IP address (with or without a port), not a name.
    public static func isAddressLiteral(_ text: String) -> Bool {
        guard let e = PeerEndpoint(parsing: text, defaultPort: 1) else { return false }
        let host = e.host.split(separator: "%").first.map(String.init) ?? e.host
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
