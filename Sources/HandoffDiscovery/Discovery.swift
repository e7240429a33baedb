/// Which of this machine's `_handoff._tcp` instances: the private advert, always published, and
/// the pairing advert, published only while the pairing window is open. Each has its own entry
/// group, so that one comes and goes without touching the other.
public enum AdvertSlot: Sendable, Hashable, CaseIterable {
    case main, pairing
}

/// Advertises this machine's `_handoff._tcp` instances. Calls set the desired state; the
/// implementation applies it whenever avahi-daemon is (or comes back) up.
public protocol ServiceAdvertiser: AnyObject, Sendable {
    func publish(_ advert: ServiceAdvert, slot: AdvertSlot) throws(DiscoveryError)
    /// Replaces the main advert's TXT entries in place (no withdraw, no new probing).
    func updateTXT(_ txt: TXTRecord) throws(DiscoveryError)
    func withdraw(slot: AdvertSlot)
}

extension ServiceAdvertiser {
    public func publish(_ advert: ServiceAdvert) throws(DiscoveryError) { try publish(advert, slot: .main) }
    public func withdraw() { withdraw(slot: .main) }
}

/// The other handoffd instances currently resolved on the local link.
public protocol ServiceBrowser: AnyObject, Sendable {
    var peers: [DiscoveredPeer] { get }
}

/// Both, plus the event stream and shutdown. `HandoffAvahi.AvahiDiscovery` is the real one;
/// `FakeDiscovery` is the in-memory one for tests of the logic above.
public protocol Discovery: ServiceAdvertiser, ServiceBrowser {
    /// Every event, in order. One consumer.
    var events: AsyncStream<DiscoveryEvent> { get }
    /// Withdraws the advert (peers see the goodbye) and stops.
    func shutdown()
}
