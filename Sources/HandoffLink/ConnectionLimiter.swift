/// Limits on connections that have not authenticated yet: at most `total` in all and `perSource`
/// from one address. A connection from an address a paired peer was last seen at is not counted
/// against the limits, so a flood of strangers cannot lock a paired peer out.
public struct ConnectionLimiter: Sendable {
    public let total: Int
    public let perSource: Int
    private var bySource: [String: Int] = [:]
    private var count = 0

    public init(total: Int = 8, perSource: Int = 2) {
        self.total = total
        self.perSource = perSource
    }

    public enum Admission: Sendable, Equatable { case counted, exempt, refused }

    /// Decides on a new connection; `.counted` ones must be `release`d when they authenticate or close.
    public mutating func admit(source: String, isKnownPeerAddress: Bool) -> Admission {
        if isKnownPeerAddress { return .exempt }
        guard count < total, bySource[source, default: 0] < perSource else { return .refused }
        count += 1
        bySource[source, default: 0] += 1
        return .counted
    }

    public mutating func release(source: String) {
        guard let n = bySource[source], n > 0 else { return }
        count -= 1
        bySource[source] = n == 1 ? nil : n - 1
    }

    public var unauthenticated: Int { count }
}
