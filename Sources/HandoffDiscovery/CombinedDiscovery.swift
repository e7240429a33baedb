/// Several discoveries as one: what is published goes to each (the link's mDNS and a DNS zone),
/// and each one's events are a source of their own, which the reader merges by name
/// (`MergedPeerTable`).
public final class CombinedDiscovery: Discovery, @unchecked Sendable {
    private let parts: [any Discovery]

    public init(_ parts: [any Discovery]) { self.parts = parts }

    public var sources: [AsyncStream<DiscoveryEvent>] { parts.flatMap(\.sources) }

    /// Each name once, as the first part that lists it has it.
    public var peers: [DiscoveredPeer] {
        var seen: Set<String> = []
        return parts.flatMap(\.peers).filter { seen.insert($0.name).inserted }
    }

    public func publish(_ advert: ServiceAdvert, slot: AdvertSlot) throws(DiscoveryError) {
        for part in parts { try part.publish(advert, slot: slot) }
    }

    public func updateTXT(_ txt: TXTRecord) throws(DiscoveryError) {
        for part in parts { try part.updateTXT(txt) }
    }

    public func withdraw(slot: AdvertSlot) { for part in parts { part.withdraw(slot: slot) } }

    /// Any part's (the link's: mDNS names collide).
    public var collided: Bool { parts.contains { $0.collided } }
    public func whenCollided(_ action: @escaping @Sendable () -> Void) { for part in parts { part.whenCollided(action) } }

    public func follow(_ names: Set<String>) { for part in parts { part.follow(names) } }
    public func resolve(only wanted: @escaping NameInterest) { for part in parts { part.resolve(only: wanted) } }

    public func start() { for part in parts { part.start() } }
    public func shutdown() { for part in parts { part.shutdown() } }
}
