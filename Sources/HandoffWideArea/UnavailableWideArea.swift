import HandoffDiscovery

/// Unicast DNS-SD that could not start (its key file refused, say): it publishes and lists
/// nothing, and says why once, so that `handoffctl status` shows it beside mDNS, which goes on.
public final class UnavailableWideArea: Discovery, @unchecked Sendable {
    public let events: AsyncStream<DiscoveryEvent>
    private let continuation: AsyncStream<DiscoveryEvent>.Continuation

    public init(reason: String) {
        (events, continuation) = AsyncStream.makeStream()
        continuation.yield(.wideArea(.failing(reason)))
    }

    public var sources: [AsyncStream<DiscoveryEvent>] { [events] }
    public var peers: [DiscoveredPeer] { [] }
    public func publish(_ advert: ServiceAdvert, slot: AdvertSlot) throws(DiscoveryError) {}
    public func updateTXT(_ txt: TXTRecord) throws(DiscoveryError) {}
    public func withdraw(slot: AdvertSlot) {}
    public func shutdown() { continuation.finish() }
}
