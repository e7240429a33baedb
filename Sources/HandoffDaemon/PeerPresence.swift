import Foundation

/// Whether a peer is shown as present: Avahi must list it and it must have answered on the link
/// recently. After SIGKILL a host sends no goodbye and peers' Avahi keeps its entry for up to 75
/// minutes; the link answer is what makes it disappear within seconds.
public struct PeerPresence: Sendable {
    /// How long a link answer counts. The daemon pings present peers more often than this.
    public let freshness: TimeInterval
    private var listed: Set<String> = []
    private var lastAnswer: [String: Date] = [:]

    public init(freshness: TimeInterval = 6) { self.freshness = freshness }

    public mutating func listedByAvahi(_ name: String) { listed.insert(name) }

    public mutating func removedByAvahi(_ name: String) {
        listed.remove(name)
        lastAnswer[name] = nil
    }

    public mutating func answered(_ name: String, at now: Date) { lastAnswer[name] = now }

    public func isPresent(_ name: String, at now: Date) -> Bool {
        guard listed.contains(name), let t = lastAnswer[name] else { return false }
        return now.timeIntervalSince(t) <= freshness
    }

    /// Listed peers that should be pinged now: never answered, or about to go stale.
    public func due(at now: Date) -> [String] {
        listed.filter { name in lastAnswer[name].map { now.timeIntervalSince($0) >= freshness / 3 } ?? true }.sorted()
    }

    public func present(at now: Date) -> [String] { listed.filter { isPresent($0, at: now) }.sorted() }
}
