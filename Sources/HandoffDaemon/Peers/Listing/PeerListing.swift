#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffAdvert
import HandoffAsync
import HandoffCore
import HandoffDiscovery
import HandoffLink
import Logging

/// What `PeerListing` tells the other parts of Peers about a paired peer's advert: values its
/// caller routes, never a call from the listing into them.
enum ListingNews: Sendable, Equatable {
    /// Where the peer's advert says it listens (empty: no advert of it is listed now); `moved`
    /// when that is new or changed, so that the peer is dialled at once.
    case located(peerID: PeerID, endpoints: [PeerEndpoint], moved: Bool)
    /// The activity tokens sealed in the peer's advert, opened with its key.
    case offers(peerID: PeerID, tokens: [AdvertTXT.Token])
    /// The adverts whose TXT changes discovery is to watch now: the paired peers' (recognised).
    case follow(Set<String>)
    /// Which instances discovery is to resolve: those the paired peers' keys tag, and untagged.
    case resolve(AdvertNameInterest)
}

/// What a caller can wait for until the listing notices it.
enum PeerWait: Hashable, Sendable {
    /// The Avahi client is up (start-up's readiness).
    case avahiUp
    /// Discovery lists an advert that this paired peer's key recognises.
    case listed(peerID: PeerID)
    /// Discovery lists a pairing advert under this name.
    case pairingListed(name: String)
}

/// What a peer is listed as: the events of every discovery source (the link's mDNS, a DNS zone)
/// merged by name, the private adverts recognised by the paired peers' keys, the pairing adverts,
/// and whether Avahi and the zone work. An advert is a hint of where to dial, never proof of who
/// answers there: this part dials nothing; it says where (`ListingNews`).
actor PeerListing {
    private let trustStore: any TrustStore
    private let events: ControlEvents
    private let logger: Logger
    private var adverts = ListedAdverts()
    /// The paired peers' advertising keys the recogniser was built from.
    private var advertKeys: [(peerID: PeerID, key: AdvertisingKey)] = []
    private var recogniser = PrivateAdvert.Recogniser(keys: [])
    private let waits = Waiters<PeerWait, Void>()
    /// How long a request waits for a paired peer's advert when nothing else says where it is.
    private var grace: Duration
    /// The names discovery was last told to follow.
    private var followed: Set<String> = []
    /// Whether discovery was told which names to resolve since this listing started.
    private var interestSent = false

    init(trustStore: any TrustStore, events: ControlEvents, logger: Logger, listingGrace: Duration) {
        self.trustStore = trustStore
        self.events = events
        self.logger = logger
        grace = listingGrace
    }

    var avahi: AvahiState { adverts.avahi }
    var wideArea: WideAreaStatus? { adverts.wideArea }

    func setListingGrace(_ grace: Duration) { self.grace = grace }
    func waiting(for reason: PeerWait) -> Int { waits.count(reason) }
    func heartbeat() {}
    func endWaits() { waits.endAll() }

    /// Waits until the Avahi client is up, or `timeout` passes; true if it is up.
    func waitForAvahi(timeout: Duration) async -> Bool {
        if !adverts.avahi.isUp { _ = await waits.wait(for: .avahiUp, deadline: timeout) }
        return adverts.avahi.isUp
    }

    /// The listed advert of a paired peer, waiting up to the listing grace for it; nil if it is
    /// still not listed.
    func awaitListed(peerID: PeerID) async -> DiscoveredPeer? {
        if adverts.listing(peerID: peerID) == nil { _ = await waits.wait(for: .listed(peerID: peerID), deadline: grace) }
        return adverts.listing(peerID: peerID)
    }

    /// Waits up to the listing grace for a pairing advert under this name.
    func awaitPairingListed(name: String) async {
        if adverts.pairingListing(named: name) == nil { _ = await waits.wait(for: .pairingListed(name: name), deadline: grace) }
    }

    func listing(peerID: PeerID) -> DiscoveredPeer? { adverts.listing(peerID: peerID) }
    func pairingListing(named name: String) -> DiscoveredPeer? { adverts.pairingListing(named: name) }
    var pairingListings: [DiscoveredPeer] { adverts.pairingListings }

    /// Which sources list an advert: "mdns" (the link) and "zone" (unicast DNS-SD). Shown with a
    /// pairing advert too: one from a zone may have been written by anyone with the zone key.
    func foundBy(_ advert: String) -> [String] {
        adverts.sources.sources(listing: advert).map { $0 == 0 ? "mdns" : "zone" }
    }

    /// A peer unpaired: none of its adverts is recognised any more.
    func forget(peerID: PeerID) { adverts.forget(peerID: peerID) }

    // MARK: - Discovery events

    /// An event of one source: merged by name with the others'.
    func handle(_ event: DiscoveryEvent, from source: Int) -> [ListingNews] {
        adverts.sources.apply(event, from: source).flatMap { handle($0) } + following()
    }

    /// The recognised adverts are followed (their TXT watched); every other one was read once.
    private func following() -> [ListingNews] {
        let names = Set(adverts.recognised.keys)
        guard names != followed else { return [] }
        followed = names
        return [.follow(names)]
    }

    private func handle(_ event: DiscoveryEvent) -> [ListingNews] {
        switch event {
        case .avahiUp:
            adverts.avahi = .up(advertisedAs: nil)
            waits.resumeAll(.avahiUp, with: ())
            logger.info("avahi-daemon reachable")
        case .avahiDown(let reason):
            adverts.avahi = .down(reason)
            logger.warning("avahi-daemon unreachable; advertising resumes when it is back", metadata: ["reason": "\(reason)"])
        case .published(let name):
            adverts.avahi = .up(advertisedAs: name)
            logger.info("advertised", metadata: ["advert.name": "\(name)"])
        case .peerAppeared(let peer), .peerChanged(let peer):
            let news = refresh()
            let moved = adverts.discovered[peer.name].map { $0.addresses != peer.addresses || $0.port != peer.port } ?? true
            return news + read(peer, moved: moved)
        case .peerRemoved(let name):
            let wasPairing = adverts.pairingListing(named: name) != nil
            if let peerID = adverts.withdrawn(name) {
                // After a rotation the old advert goes before the new one is announced: the peer
                // is unlisted until then (its sessions, and so its presence, are untouched).
                if adverts.listing(peerID: peerID) == nil {
                    logger.info("paired peer's advert withdrawn", metadata: ["peer.id": "\(peerID)"])
                    events.broadcast("peerRemoved", ["peer": .string(displayName(peerID: peerID))])
                }
                return [located(peerID, moved: false)]
            } else if wasPairing {
                events.broadcast("peerRemoved", ["peer": .string(name), "pairing": .bool(true)])
            }
        case .foreignService(let name, let reason):
            logger.debug("ignoring a foreign _handoff._tcp service", metadata: ["service.name": "\(name)", "reason": "\(reason)"])
        case .failure(let error):
            logger.error("discovery failed", metadata: ["error": "\(error)"])
            // `status` says why too (the client could not be made: no system bus, ...).
            if !adverts.avahi.isUp { adverts.avahi = .down("\(error)") }
        case .wideArea(let status):
            adverts.wideArea = status
        }
        return []
    }

    /// Reads a listed advert: a paired peer's (its key recognises the record), a pairing advert
    /// (a name shown while that machine's window is open), or a stranger's, kept unshown in case
    /// a pairing later gives us its key. Recognition rests on the keys only: nothing in the clear
    /// can claim to be a paired peer.
    private func read(_ listing: DiscoveredPeer, moved: Bool) -> [ListingNews] {
        var peer = listing
        peer.addresses = AdvertAddresses.usable(peer.addresses, local: InterfaceAddresses.current() ?? [])
        let isNew = adverts.discovered[peer.name] == nil
        let before = adverts.recognised[peer.name]?.peerID
        if let (peerID, contents) = recogniser.recognise(peer.txt, preferring: before) {
            var news: [ListingNews] = []
            if adverts.recognise(peer.name, peerID: peerID, sequence: contents.sequence) {
                news.append(.offers(peerID: peerID, tokens: contents.tokens))
            } else if let held = adverts.discovered[peer.name] {
                // An older record lingering beside the newer one: keep the newer one's TXT.
                peer.txt = held.txt
            }
            adverts.listed(peer)
            waits.resumeAll(.listed(peerID: peerID), with: ())
            news.append(located(peerID, moved: moved || before != peerID))
            let shown = displayName(peerID: peerID)
            if before != peerID {
                logger.info("paired peer's advert recognised", metadata: ["peer.name": "\(shown)"])
                events.broadcast("peerAppeared", ["peer": .string(shown)])
            } else {
                events.broadcast("peerChanged", ["peer": .string(shown)])
            }
            return news
        }
        var news: [ListingNews] = []
        if let before {
            adverts.unrecognised(peer.name)
            news.append(located(before, moved: false))
        }
        adverts.listed(peer)
        if peer.txt[AdvertTXT.pairingKey] == "1" {
            waits.resumeAll(.pairingListed(name: peer.name), with: ())
            if isNew {
                logger.info("pairing advert listed", metadata: ["peer.name": "\(peer.name)"])
                events.broadcast("peerAppeared", ["peer": .string(peer.name), "pairing": .bool(true)])
            }
        } else if isNew {
            logger.debug("an advert no paired key recognises is listed")
        }
        return news
    }

    /// Where the peer's listed advert says it listens: IPv4 addresses first.
    private func located(_ peerID: PeerID, moved: Bool) -> ListingNews {
        guard let listed = adverts.listing(peerID: peerID) else { return .located(peerID: peerID, endpoints: [], moved: moved) }
        let ordered = listed.addresses.filter { $0.family == .ipv4 } + listed.addresses.filter { $0.family != .ipv4 }
        return .located(peerID: peerID, endpoints: ordered.map { AdvertAddresses.endpoint($0, port: Int(listed.port)) }, moved: moved)
    }

    /// Rebuilds the recogniser when the paired peers' advertising keys changed (a pairing, an
    /// unpair, a peer's new key arriving over the link), and reads every listed advert again.
    func refresh() -> [ListingNews] {
        let trusted = (try? trustStore.peers()) ?? []
        let keys = trusted.compactMap { t in t.advertisingKey.map { (peerID: t.identity.id, key: $0) } }
        guard !interestSent || keys.map(\.peerID) != advertKeys.map(\.peerID) || keys.map(\.key) != advertKeys.map(\.key) else { return [] }
        interestSent = true
        advertKeys = keys
        recogniser = PrivateAdvert.Recogniser(keys: keys)
        return [.resolve(AdvertNameInterest(keys: keys.map(\.key)))]
            + adverts.discovered.values.sorted(by: { $0.name < $1.name }).flatMap { read($0, moved: false) } + following()
    }

    /// How a paired peer is shown: the name it was paired under.
    private func displayName(peerID: PeerID) -> String {
        ((try? trustStore.peers()) ?? []).first { $0.identity.id == peerID }?.name ?? peerID.rawValue
    }
}
