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
    /// The main advert, published with `CollisionPolicy.withdraw`, lost its name to a collision
    /// and is withdrawn until another is published.
    var collided: Bool { get }
    /// `action` runs (on the implementation's own thread) each time the main advert meets a
    /// collision, so that its owner acts now instead of at its next look at `collided`.
    func whenCollided(_ action: @escaping @Sendable () -> Void)
}

extension ServiceAdvertiser {
    /// A source whose names cannot collide (a DNS zone: the update names the record).
    public var collided: Bool { false }
    public func whenCollided(_ action: @escaping @Sendable () -> Void) {}
    public func publish(_ advert: ServiceAdvert) throws(DiscoveryError) { try publish(advert, slot: .main) }
    public func withdraw() { withdraw(slot: .main) }
}

/// The other handoffd instances currently resolved on the local link.
public protocol ServiceBrowser: AnyObject, Sendable {
    var peers: [DiscoveredPeer] { get }
    /// The instances whose TXT changes matter (the paired peers' adverts): those are watched, every
    /// other one is resolved once. Watching each advert on a link of N machines is N x N
    /// long-lived queriers, each asking again 1, 2, 4, ... s after it starts: at N = 50, after
    /// every machine's rotation, 2,450 of them saturated the link's avahi-daemons.
    func follow(_ names: Set<String>)
    /// Which newly listed instances to resolve (until told, every one): resolving costs queries
    /// that every machine on the link reads, so a daemon resolves only the names its paired peers'
    /// keys tag (`HandoffAdvert.AdvertNameInterest`). A new filter resolves the instances listed
    /// earlier that it now wants (a pairing, a peer's new key).
    func resolve(only wanted: @escaping NameInterest)
}

/// Whether to resolve an instance, by its name.
public typealias NameInterest = @Sendable (String) -> Bool

extension ServiceBrowser {
    /// A source that watches nothing (a DNS zone is read whole at each poll).
    public func follow(_ names: Set<String>) {}
    /// A source that reads every instance anyway (a DNS zone).
    public func resolve(only wanted: @escaping NameInterest) {}
}

/// Both, plus the event streams and shutdown. `HandoffAvahi.AvahiDiscovery` is the link's;
/// `HandoffWideArea.WideAreaDiscovery` a DNS zone's; `CombinedDiscovery` joins them;
/// `FakeDiscovery` is the in-memory one for tests of the logic above.
public protocol Discovery: ServiceAdvertiser, ServiceBrowser {
    /// The event streams, one per source (the link, a zone), each in order; one consumer each.
    /// A peer two sources list is one peer: readers merge them by name (`MergedPeerTable`).
    var sources: [AsyncStream<DiscoveryEvent>] { get }
    /// Begins talking to the backend, for a discovery made not to at once (`AvahiDiscovery`'s
    /// `startingClient: false`); until then what is published and asked for waits, as for a
    /// backend that is not up yet. Idempotent.
    func start()
    /// Withdraws the advert (peers see the goodbye) and stops.
    func shutdown()
}

extension Discovery {
    /// A source that starts when it is made.
    public func start() {}
}
