#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffClipboard
import HandoffControl
import HandoffCore
import HandoffDiscovery
import HandoffLink
import HandoffProtocol
import Logging
import ServiceLifecycle

/// What Peers is told at start: our hello, the configured addresses, how long a request waits
/// for an advert, how often sessions are pinged.
struct PeersSettings: Sendable {
    var device: String
    /// The types this machine declares, told to peers in each hello.
    var declared: DeclaredTypes
    var staticPeers: [PeerEndpoint] = []
    /// The shared clipboard's settings, and the file that keeps `handoffctl clipboard off`.
    var clipboard = ClipboardSettings()
    var clipboardOffMarker: String?
    /// How long a request waits for a paired peer's advert when nothing else says where it is.
    var listingGrace: Duration = .seconds(3)
    /// How often a session is pinged, how long a ping may take before the peer is dialled afresh,
    /// and how long that fresh session may take before the silent one is closed and the peer
    /// absent: a peer that vanished without a goodbye is found within their sum and a second of
    /// the loop's looks (11 s; docs/ARCHITECTURE.md, "Presence").
    var pingInterval: TimeInterval = 2
    var pingTimeout: Duration = .seconds(4)
    var redialBudget: TimeInterval = 4
}

/// The other machines, in three parts that each own their state: what a peer is listed as
/// (`PeerListing`: discovery events of every source, recognition, the merged table), how we reach
/// it (`PeerReach`: listener, dialler, sessions, pings, hello, presence, network changes) and
/// what we ask it (`PeerAsking`: requests, answers, its activities). This Service runs them and
/// routes what the listing notices (`ListingNews`) to the other two: the parts never call back
/// into one another (asking uses the reach and the listing; the reach and the listing use
/// neither). The control operations and the other components see this one door.
public final class Peers: Service, Sendable {
    let listing: PeerListing
    let reach: PeerReach
    let asking: PeerAsking
    /// The shared clipboard: offers to and from the paired machines, fetched on paste.
    let clipboard: Clipboard
    private let endpoint: LinkEndpoint
    private let discovery: any Discovery
    private let logger: Logger

    init(endpoint: LinkEndpoint, settings: PeersSettings, discovery: any Discovery, events: ControlEvents, logger: Logger) {
        self.endpoint = endpoint
        self.discovery = discovery
        self.logger = logger
        listing = PeerListing(trustStore: endpoint.trustStore, events: events, logger: logger, listingGrace: settings.listingGrace)
        reach = PeerReach(endpoint: endpoint, settings: settings, events: events, logger: logger)
        asking = PeerAsking(reach: reach, listing: listing, events: events, declared: settings.declared)
        clipboard = Clipboard(settings: settings.clipboard, offMarker: settings.clipboardOffMarker, reach: reach, events: events, logger: logger)
    }

    public var links: PeerLinks { reach.links }
    var fingerprint: String { endpoint.identity.identity.fingerprint }
    var isPairingWindowOpen: Bool { endpoint.isPairingWindowOpen }
    var pairingWindowCloses: Date? { endpoint.pairingWindowCloses }
    /// `action` runs at each network change or resume the dialer acts on (before it acts).
    func setOnNetworkChange(_ action: @escaping @Sendable (NetworkChange) -> Void) async { await reach.setOnNetworkChange(action) }
    /// The paired peers, as the trust store holds them.
    func trusted() throws -> [TrustedPeer] { try endpoint.trustStore.peers() }

    /// Where stream frames go; set before the link listens.
    func setStreamSink(_ sink: @escaping LinkEndpoint.StreamSink) { endpoint.setStreamSink(sink) }

    /// Binds the link listener; the port is what the advert carries.
    func listen(host: String, port: Int) async throws -> Int { try await reach.listen(host: host, port: port) }
    func dialAtOnce() async { await reach.dialAtOnce() }
    /// Until the dials `dialAtOnce` started have ended, or `bound` has passed. The start's work
    /// that can wait (the Avahi client, the search index) waits for this with the default bound:
    /// it would take the CPU from a restarted daemon's first handshakes, what its peers wait on.
    func firstDialsEnded(within bound: Duration = .milliseconds(100)) async { await reach.firstDialsEnded(within: bound) }
    var port: Int { get async { await reach.port } }
    var avahi: AvahiState { get async { await listing.avahi } }
    var wideArea: WideAreaStatus? { get async { await listing.wideArea } }

    public func run() async throws {
        let listing = self.listing, trustChanges = endpoint.trustChanges
        // Discovery resolves only what the paired peers' keys tag, from the start.
        await route(await listing.refresh())
        await withDiscardingTaskGroup { group in
            // Discovery (the Avahi client) starts once the first dials have ended, or after
            // 100 ms: making the client loads libavahi-client with the eight libraries it brings and
            // talks to dbus-daemon and avahi-daemon, CPU that a small machine's restarted daemon
            // took from its first handshakes (Benchmarks/scripts/bench-presence.sh, docs/ARCHITECTURE.md,
            // "Presence"). A paired peer's address is remembered; mDNS is only a hint.
            group.addTask { [discovery] in
                await self.firstDialsEnded()
                // Not for a daemon already stopping (the group is cancelled).
                if !Task.isCancelled { discovery.start() }
            }
            for (index, events) in discovery.sources.enumerated() {
                group.addTask {
                    for await event in events.cancelOnGracefulShutdown() { await self.route(await listing.handle(event, from: index)) }
                }
            }
            // A key that arrived over a session (or an unpair notice) changes which adverts are
            // whose: the listing reads them again.
            group.addTask {
                for await _ in trustChanges.cancelOnGracefulShutdown() { await self.route(await listing.refresh()) }
            }
            await reach.run()
            await listing.endWaits()
            group.cancelAll()
        }
    }

    /// Hands what the listing noticed to the part it concerns.
    func route(_ news: [ListingNews]) async {
        for item in news {
            switch item {
            case .located(let peerID, let endpoints, let moved): await reach.located(peerID, at: endpoints, moved: moved)
            case .offers(let peerID, let tokens): await asking.offers(tokens, peerID: peerID)
            case .follow(let names): discovery.follow(names)
            case .resolve(let interest): discovery.resolve(only: interest.wants)
            }
        }
    }

    /// The listing reads the adverts again if the paired keys changed since it last looked.
    func refreshListing() async { await route(await listing.refresh()) }

    /// Wakes each part: the heartbeat's check that none is stuck.
    func heartbeat() async {
        await reach.heartbeat()
        await listing.heartbeat()
        await asking.heartbeat()
    }

    func waitForAvahi(timeout: Duration) async -> Bool { await listing.waitForAvahi(timeout: timeout) }
    func setListingGrace(_ grace: Duration) async { await listing.setListingGrace(grace) }
    func waiting(for reason: PeerWait) async -> Int { await listing.waiting(for: reason) }

    // MARK: - What the other components ask

    func answer(hello: Hello, id: Int64, on session: LinkSession) async -> PeerMessage {
        await reach.answer(hello: hello, id: id, on: session)
    }

    func capabilities(of peerID: PeerID) async -> PeerCapabilities? { await reach.capabilities(of: peerID) }
    func offered(_ items: [ActivitySummary], to peerID: PeerID) async -> [ActivitySummary] { await reach.offered(items, to: peerID) }
    func name(of identity: PeerIdentity) -> String { reach.name(of: identity) }

    func remoteChanged(_ items: [ActivitySummary], from peer: PeerIdentity, on session: LinkSession) async {
        await asking.remoteChanged(items, from: peer, on: session)
    }

    func remoteInvalidated(_ activityID: UUID, by peer: PeerIdentity) async { await asking.remoteInvalidated(activityID, by: peer) }
    func activities(of peer: PeerView) async throws(ControlError) -> [ActivitySummary] { try await asking.activities(of: peer) }
    func tellChanged(_ items: [ActivitySummary]) async { await asking.tellChanged(items) }

    /// Our declared types changed: peers are told in a new hello on each open session.
    func declaredTypesChanged() async { await reach.greetAgain() }
    func tellInvalidated(_ activityID: UUID) async { await asking.tellInvalidated(activityID) }

    func request(_ peer: PeerView, timeout: Duration = .seconds(5), _ make: @escaping @Sendable (Int64) -> PeerMessage) async throws(ControlError)
        -> PeerMessage
    {
        try await asking.request(peer, timeout: timeout, make)
    }

    /// A pairing succeeded: its key recognises adverts from now on, and the peer is dialled now.
    func paired(_ peer: PeerIdentity, at where_: PeerEndpoint?) async {
        await refreshListing()
        await reach.paired(peer, at: where_)
    }

    /// After unpairing: sessions closed, nothing kept.
    func forget(_ peer: PeerIdentity) async {
        await reach.forget(peer)
        await listing.forget(peerID: peer.id)
        await asking.forget(peerID: peer.id)
        await refreshListing()
    }

    func disconnect(_ peer: PeerIdentity) async { await reach.disconnect(peer) }
}
