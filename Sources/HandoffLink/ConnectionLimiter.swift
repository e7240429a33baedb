#if canImport(Glibc)
    import Glibc
#endif

/// Limits on connections that have not authenticated yet: at most `total` in all, `perSource` from
/// one address and `perPrefix` from one /24 (IPv4) or /64 (IPv6), so that a stranger with a few
/// addresses cannot take every slot. A connection from an address where a currently paired peer
/// authenticated (remembered by the trust store) is exempt from those limits, so that a flood of
/// strangers cannot lock a paired peer out; exempt connections have a cap of their own
/// (`maxExempt`), so that neither can a peer's old address.
public struct ConnectionLimiter: Sendable {
    public let total: Int
    public let perSource: Int
    public let perPrefix: Int
    public let maxExempt: Int
    private var bySource: [String: Int] = [:]
    private var byPrefix: [String: Int] = [:]
    private var count = 0
    private var exempt = 0

    public init(total: Int = 8, perSource: Int = 2, perPrefix: Int = 4, maxExempt: Int = 16) {
        self.total = total
        self.perSource = perSource
        self.perPrefix = perPrefix
        self.maxExempt = maxExempt
    }

    public enum Admission: Sendable, Equatable { case counted, exempt, refused }

    /// Decides on a new connection; `.counted` and `.exempt` ones must be released (`release`,
    /// `releaseExempt`) when they authenticate or close.
    public mutating func admit(source: String, isKnownPeerAddress: Bool) -> Admission {
        if isKnownPeerAddress, exempt < maxExempt {
            exempt += 1
            return .exempt
        }
        let prefix = Self.prefix(of: source)
        guard count < total, bySource[source, default: 0] < perSource, byPrefix[prefix, default: 0] < perPrefix else { return .refused }
        count += 1
        bySource[source, default: 0] += 1
        byPrefix[prefix, default: 0] += 1
        return .counted
    }

    public mutating func release(source: String) {
        guard let n = bySource[source], n > 0 else { return }
        count -= 1
        bySource[source] = n == 1 ? nil : n - 1
        let prefix = Self.prefix(of: source)
        if let p = byPrefix[prefix] { byPrefix[prefix] = p <= 1 ? nil : p - 1 }
    }

    public mutating func releaseExempt() { exempt = max(0, exempt - 1) }

    public var unauthenticated: Int { count }
    public var exemptUnauthenticated: Int { exempt }

    /// The /24 of an IPv4 address, the /64 of an IPv6 one; anything else stands for itself.
    public static func prefix(of address: String) -> String {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            let b = withUnsafeBytes(of: v4) { Array($0) }
            return "\(b[0]).\(b[1]).\(b[2]).0/24"
        }
        var v6 = in6_addr()
        let bare = address.split(separator: "%").first.map(String.init) ?? address
        if inet_pton(AF_INET6, bare, &v6) == 1 {
            let b = withUnsafeBytes(of: v6) { Array($0.prefix(8)) }
            return b.map { String($0, radix: 16) }.joined(separator: ":") + "/64"
        }
        return address
    }
}
