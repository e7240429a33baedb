/// Advertises this machine's one `_handoff._tcp` instance. Calls set the desired state; the
/// implementation applies it whenever avahi-daemon is (or comes back) up.
public protocol ServiceAdvertiser: AnyObject, Sendable {
    func publish(_ advert: ServiceAdvert) throws(DiscoveryError)
    /// Replaces the caller's TXT entries in place (no withdraw, no new probing).
    func updateTXT(_ txt: TXTRecord) throws(DiscoveryError)
    func withdraw()
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
