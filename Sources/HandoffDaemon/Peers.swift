import Foundation
import HandoffAdvert
import HandoffAsync
import HandoffControl
import HandoffCore
import HandoffDiscovery
import HandoffLink
import HandoffProtocol
import NIOCore
import Logging
import ServiceLifecycle

/// What a caller can wait for until `Peers` notices it.
enum PeerWait: Hashable, Sendable {
    /// The Avahi client is up (start-up's readiness).
    case avahiUp
    /// Discovery lists an advert that this paired peer's key recognises.
    case listed(peerID: String)
    /// Discovery lists a pairing advert under this name.
    case pairingListed(name: String)
    /// The dial and ping loop's next look (woken early by a network change or an advert).
    case look
}

/// What Peers is told at start: our hello, the configured addresses, how long a request waits
/// for an advert.
struct PeersSettings: Sendable {
    var device: String
    var types: [String]
    var staticPeers: [PeerEndpoint] = []
    /// How long a request waits for a paired peer's advert when nothing else says where it is.
    var listingGrace: Duration = .seconds(3)
    /// How often a session is pinged, and how long a ping may take before the session is closed
    /// (a peer that vanished without a goodbye is found within their sum).
    var pingInterval: TimeInterval = 2
    var pingTimeout: Duration = .seconds(4)
}

/// The other machines: Avahi's listing of them, the sessions with paired ones (accepted and
/// opened), presence, what each declared in its hello, and each one's current activities.
/// Presence comes from the link: a paired peer is present while a session with it is open; it is
/// dialled at its last-known addresses at start, on a network change and after a resume, without
/// waiting for mDNS, which is only a hint of where to dial. Owns the link listener: `listen` in
/// the prelude, then `run()` until shutdown says goodbye on every session.
public actor Peers: Service {
    enum Phase: Equatable {
        case idle
        case listening(port: Int)
        case stopped
    }

    private nonisolated let endpoint: LinkEndpoint
    public nonisolated let links: PeerLinks
    private var settings: PeersSettings
    private let discovery: any Discovery
    /// The paired peers' advertising keys the recogniser was built from.
    private var advertKeys: [(peerID: String, key: AdvertisingKey)] = []
    private var recogniser = PrivateAdvert.Recogniser(keys: [])
    private let events: ControlEvents
    private let logger: Logger
    private var directory = PeerDirectory()
    private var phase = Phase.idle
    private let waits = Waiters<PeerWait, Void>()
    /// This machine's addresses, read at start and at every network change (not at every hello:
    /// getifaddrs on the path of a new session showed in the cold continue).
    private var localAddresses = InterfaceAddresses.current() ?? []
    /// The dials `dialAtOnce` started before `run()`: `run()` takes them over.
    private var started: [(key: String, candidate: PeerEndpoint, session: EventLoopFuture<LinkSession>)] = []

    init(endpoint: LinkEndpoint, settings: PeersSettings, discovery: any Discovery, events: ControlEvents, logger: Logger) {
        self.endpoint = endpoint
        links = PeerLinks(endpoint: endpoint, logger: logger)
        self.settings = settings
        self.discovery = discovery
        self.events = events
        self.logger = logger
    }

    /// Binds the link listener; the port is what the advert carries.
    func listen(host: String, port: Int) async throws -> Int {
        let bound: Int
        do { bound = try await endpoint.listen(host: host, port: port) } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw DaemonStartError.portInUse(port)
        }
        phase = .listening(port: bound)
        return bound
    }

    nonisolated var fingerprint: String { endpoint.identity.identity.fingerprint }
    nonisolated var isPairingWindowOpen: Bool { endpoint.isPairingWindowOpen }

    /// The paired peers, as the trust store holds them.
    nonisolated func trusted() throws -> [TrustedPeer] { try endpoint.trustStore.peers() }

    /// Starts dialling every paired peer due now, in the prelude right after `listen`: a
    /// restarted machine is present to its peers before its services even run.
    func dialAtOnce() async {
        for dial in await dueDials() {
            for candidate in dial.candidates {
                started.append((dial.key, candidate, endpoint.startConnect(host: candidate.host, port: candidate.port, expecting: dial.peer)))
            }
        }
    }

    var port: Int { if case .listening(let p) = phase { p } else { 0 } }
    var avahi: AvahiState { directory.avahi }
    var wideArea: WideAreaStatus? { directory.wideArea }

    public func run() async throws {
        let endpoint = self.endpoint, links = self.links, sources = discovery.sources
        let changes = NetworkChanges.watch()
        if changes == nil { logger.notice("no rtnetlink here: network changes are noticed by the dial backoff and mDNS only") }
        await withDiscardingTaskGroup { group in
            group.addTask { await links.run() }
            group.addTask {
                for await session in endpoint.sessions.cancelOnGracefulShutdown() { await self.accepted(session) }
            }
            for (index, events) in sources.enumerated() {
                group.addTask {
                    for await event in events.cancelOnGracefulShutdown() { await self.handle(event, from: index) }
                }
            }
            group.addTask {
                for await change in links.presence.stream.cancelOnGracefulShutdown() { await self.presenceChanged(change) }
            }
            for (key, candidate, future) in started {
                group.addTask { await self.dialed(key, at: candidate, outcome: await Self.outcome { try await future.get() }) }
            }
            started = []
            if let changes {
                group.addTask {
                    for await change in changes.cancelOnGracefulShutdown() { await self.networkChanged(change) }
                }
            }
            // The dial and ping loop: dials paired peers without a session that are due, pings
            // those with one; looks again every half second, or at once when woken.
            var suspend = SuspendDetector()
            while !Task.isShuttingDownGracefully && !Task.isCancelled {
                if suspend.resumed() { await networkChanged(.resumed) }
                // A key that arrived over a session makes adverts already listed readable.
                refreshRecognition()
                for dial in await dueDials() {
                    for candidate in dial.candidates {
                        group.addTask {
                            let outcome = await Self.outcome {
                                try await endpoint.connect(host: candidate.host, port: candidate.port, expecting: dial.peer)
                            }
                            await self.dialed(dial.key, at: candidate, outcome: outcome)
                        }
                    }
                }
                await links.closeRetired()
                for (peerID, session) in await duePings() {
                    let timeout = settings.pingTimeout
                    group.addTask {
                        var timedOut = false
                        do throws(PeerRequestError) { _ = try await links.request({ .ping(id: $0) }, on: session, timeout: timeout) } catch {
                            if case .timedOut = error { timedOut = true }
                        }
                        await self.pinged(peerID, session: session, timedOut: timedOut)
                    }
                }
                _ = await cancelWhenGracefulShutdown { await self.waits.wait(for: .look, deadline: .milliseconds(500)) }
            }
            phase = .stopped
            waits.endAll()
            await links.closeAll()
            await endpoint.shutdown()
            group.cancelAll()
        }
        logger.info("link closed")
    }

    /// Wakes now: the heartbeat's check that this actor is not stuck.
    func heartbeat() {}

    /// Waits until the Avahi client is up, or `timeout` passes; true if it is up.
    func waitForAvahi(timeout: Duration) async -> Bool {
        if !directory.avahi.isUp { _ = await waits.wait(for: .avahiUp, deadline: timeout) }
        return directory.avahi.isUp
    }

    func setListingGrace(_ grace: Duration) { settings.listingGrace = grace }

    func waiting(for reason: PeerWait) -> Int { waits.count(reason) }

    /// The listed advert of the paired peer of this name, or the pairing advert under this name.
    func discovered(_ name: String) -> DiscoveredPeer? {
        refreshRecognition()
        if let t = ((try? endpoint.trustStore.peers()) ?? []).first(where: { $0.name == name }) { return directory.listing(peerID: t.identity.id) }
        return directory.pairingListing(named: name)
    }

    // MARK: - Discovery

    /// An event of one source (the link's mDNS, a DNS zone): merged by name with the others'.
    func handle(_ event: DiscoveryEvent, from source: Int) {
        for e in directory.sources.apply(event, from: source) { handle(e) }
    }

    func handle(_ event: DiscoveryEvent) {
        switch event {
        case .avahiUp:
            directory.avahi = .up(advertisedAs: nil)
            waits.resumeAll(.avahiUp, with: ())
            logger.info("avahi-daemon reachable")
        case .avahiDown(let reason):
            directory.avahi = .down
            logger.warning("avahi-daemon unreachable; advertising resumes when it is back", metadata: ["reason": "\(reason)"])
        case .published(let name):
            directory.avahi = .up(advertisedAs: name)
            logger.info("advertised", metadata: ["advert.name": "\(name)"])
        case .peerAppeared(let peer), .peerChanged(let peer):
            refreshRecognition()
            let moved = directory.discovered[peer.name].map { $0.addresses != peer.addresses || $0.port != peer.port } ?? true
            read(peer, moved: moved)
        case .peerRemoved(let name):
            let wasPairing = directory.pairingListing(named: name) != nil
            if let peerID = directory.withdrawn(name) {
                // After a rotation the old advert goes before the new one is announced: the peer
                // is unlisted until then (its sessions, and so its presence, are untouched).
                if directory.listing(peerID: peerID) == nil {
                    let shown = displayName(peerID: peerID)
                    logger.info("paired peer's advert withdrawn", metadata: ["peer.id": "\(peerID)"])
                    events.broadcast("peerRemoved", ["peer": .string(shown)])
                }
            } else if wasPairing {
                events.broadcast("peerRemoved", ["peer": .string(name), "pairing": .bool(true)])
            }
        case .foreignService(let name, let reason):
            logger.debug("ignoring a foreign _handoff._tcp service", metadata: ["service.name": "\(name)", "reason": "\(reason)"])
        case .failure(let error):
            logger.error("discovery failed", metadata: ["error": "\(error)"])
        case .wideArea(let status):
            directory.wideArea = status
        }
    }

    /// Reads a listed advert: a paired peer's (its key recognises the record), a pairing advert
    /// (a name shown while that machine's window is open), or a stranger's, kept unshown in case
    /// a pairing later gives us its key. Recognition rests on the keys only: nothing in the clear
    /// can claim to be a paired peer.
    private func read(_ listing: DiscoveredPeer, moved: Bool) {
        var peer = listing
        peer.addresses = AdvertAddresses.usable(peer.addresses, local: InterfaceAddresses.current() ?? [])
        let isNew = directory.discovered[peer.name] == nil
        let before = directory.recognised[peer.name]?.peerID
        if let (peerID, contents) = recogniser.recognise(peer.txt) {
            if directory.recognise(peer.name, peerID: peerID, sequence: contents.sequence) {
                directory.advertRead(contents.tokens, peerID: peerID, declared: Set(settings.types.map(AdvertTXT.typeHash)))
            } else if let held = directory.discovered[peer.name] {
                // An older record lingering beside the newer one: keep the newer one's TXT.
                peer.txt = held.txt
            }
            directory.listed(peer)
            waits.resumeAll(.listed(peerID: peerID), with: ())
            // The advert is a hint of where to dial, never proof of who answers there.
            if moved || before != peerID {
                directory.dialer.reset(peerID)
                waits.resumeAll(.look, with: ())
            }
            let shown = displayName(peerID: peerID)
            if before != peerID {
                logger.info("paired peer's advert recognised", metadata: ["peer.id": "\(peerID)"])
                events.broadcast("peerAppeared", ["peer": .string(shown)])
            } else {
                events.broadcast("peerChanged", ["peer": .string(shown)])
            }
            return
        }
        if before != nil { directory.unrecognised(peer.name) }
        directory.listed(peer)
        if peer.txt[Advert.pairingKey] == "1" {
            waits.resumeAll(.pairingListed(name: peer.name), with: ())
            if isNew {
                logger.info("pairing advert listed", metadata: ["peer.name": "\(peer.name)"])
                events.broadcast("peerAppeared", ["peer": .string(peer.name), "pairing": .bool(true)])
            }
        } else if isNew {
            logger.debug("an advert no paired key recognises is listed")
        }
    }

    /// Rebuilds the recogniser when the paired peers' advertising keys changed (a pairing, an
    /// unpair, a peer's new key arriving over the link), and reads every listed advert again.
    func refreshRecognition() {
        let trusted = (try? endpoint.trustStore.peers()) ?? []
        let keys = trusted.compactMap { t in t.advertisingKey.map { (peerID: t.identity.id, key: $0) } }
        guard keys.map(\.peerID) != advertKeys.map(\.peerID) || keys.map(\.key) != advertKeys.map(\.key) else { return }
        advertKeys = keys
        recogniser = PrivateAdvert.Recogniser(keys: keys)
        for listing in directory.discovered.values.sorted(by: { $0.name < $1.name }) { read(listing, moved: false) }
    }

    /// How a paired peer is shown: the name it was paired under.
    func displayName(peerID: String) -> String {
        ((try? endpoint.trustStore.peers()) ?? []).first { $0.identity.id == peerID }?.name ?? peerID
    }

    // MARK: - Presence

    /// One peer (or configured address) to dial now, at each of its candidate endpoints in parallel.
    struct Dial: Sendable {
        let key: String
        /// nil for a configured address: any paired key may answer there.
        let peer: PeerIdentity?
        let candidates: [PeerEndpoint]
    }

    /// Paired peers without a session, and configured addresses whose peer has none, that are due.
    private func dueDials() async -> [Dial] {
        let connected = await links.connectedPeerIDs
        let now = Date()
        var dials: [Dial] = []
        for t in (try? endpoint.trustStore.peers()) ?? [] where !connected.contains(t.identity.id) {
            let candidates = candidates(for: t)
            if !candidates.isEmpty { dials.append(Dial(key: t.identity.id, peer: t.identity, candidates: candidates)) }
        }
        for e in settings.staticPeers where directory.staticOwner[e].map({ !connected.contains($0) }) ?? true {
            dials.append(Dial(key: "static:\(e)", peer: nil, candidates: [e]))
        }
        let due = Set(directory.dialer.due(dials.map(\.key), at: now))
        let chosen = dials.filter { due.contains($0.key) }
        for d in chosen { directory.dialer.begin(d.key, attempts: d.candidates.count) }
        return chosen
    }

    /// Where a paired peer may be: its last-known endpoints (newest first), its advert's
    /// addresses, and what it told us in its last hello; at most six, no duplicates.
    private func candidates(for peer: TrustedPeer) -> [PeerEndpoint] {
        var all: [PeerEndpoint] = endpoint.trustStore.endpoints(ofPeer: peer.identity.id)
        if let listed = directory.listing(peerID: peer.identity.id) {
            let ordered = listed.addresses.filter { $0.family == .ipv4 } + listed.addresses.filter { $0.family != .ipv4 }
            all += ordered.map { AdvertAddresses.endpoint($0, port: Int(listed.port)) }
        }
        all += directory.told[peer.identity.id] ?? []
        var seen: Set<PeerEndpoint> = []
        return Array(all.filter { seen.insert($0).inserted }.prefix(6))
    }

    private static func outcome(_ dial: @Sendable () async throws -> LinkSession) async -> Result<LinkSession, any Error> {
        do { return .success(try await dial()) } catch { return .failure(error) }
    }

    /// One dial attempt ended. The round's first session is adopted (if the peer dialled us
    /// meanwhile, the session table keeps one of the two on both ends); a later one of the same
    /// round (another address of the same peer) is closed at once.
    private func dialed(_ key: String, at candidate: PeerEndpoint, outcome: Result<LinkSession, any Error>) async {
        let session = try? outcome.get()
        let first = directory.dialer.attempted(key, ok: session != nil, at: Date(), jitter: Double.random(in: 0...1))
        if case .failure(let error) = outcome, case .unexpectedPeer(let expected, let got)? = error as? LinkError {
            // Another machine took the address: nothing is stored, and the peer stays absent.
            logger.notice(
                "another machine answered at a paired peer's last-known address; refused",
                metadata: ["peer.id": "\(expected)", "peer.address": "\(candidate)", "answered.id": "\(got)"])
        }
        guard let session else { return }
        guard first, phase != .stopped else {
            await session.close()
            return
        }
        if key.hasPrefix("static:") {
            directory.staticOwner[candidate] = session.peer.id
            // A configured address of a peer already present (found another way): nothing new.
            if await links.current(session.peer.id) != nil {
                await session.close()
                return
            }
        }
        logger.info("dialled a paired peer", metadata: ["peer.id": "\(session.peer.fingerprint)", "peer.address": "\(candidate)"])
        await links.adopt(session)
        await greet(session)
    }

    /// The side that opens a session says hello first; the answer says what the peer continues.
    private func greet(_ session: LinkSession) async {
        do throws(PeerRequestError) {
            let greeting = ownHello()
            let reply = try await links.request({ .hello(id: $0, greeting) }, on: session)
            try greeted(reply, on: session)
        } catch {
            logger.notice("a peer did not answer our hello", metadata: ["peer.id": "\(session.peer.fingerprint)", "error": "\(error.code)"])
        }
    }

    /// Every open session of each peer due a ping: a stale one the peer opened (it dialled again
    /// from a new address, and its close never reached us) is found this way too.
    private func duePings() async -> [(String, LinkSession)] {
        let connected = await links.connectedPeerIDs
        var due: [(String, LinkSession)] = []
        for id in directory.duePings(among: connected, at: Date(), interval: settings.pingInterval) {
            let sessions = await links.sessions(of: id)
            if sessions.isEmpty { directory.pinging.remove(id) }
            due += sessions.map { (id, $0) }
        }
        return due
    }

    /// A ping that got no answer in time closes its session: a half-open connection must not stay
    /// in use (TCP alone would keep it for many minutes).
    private func pinged(_ peerID: String, session: LinkSession, timedOut: Bool) async {
        directory.pinging.remove(peerID)
        if timedOut {
            logger.notice("a peer stopped answering pings; closing its session", metadata: ["peer.id": "\(session.peer.fingerprint)"])
            await links.close(session, because: .pingTimeout)
        }
    }

    /// A peer's first session authenticated, or its last one ended.
    func presenceChanged(_ change: LinkPresence) async {
        let now = Date()
        switch change {
        case .present(let peer, let session):
            let address = session.remoteEndpoint?.description ?? "?"
            directory.lastPing[peer.id] = now
            logger.info("peer present", metadata: ["peer.id": "\(peer.fingerprint)", "peer.address": "\(address)"])
            events.broadcast(
                "peerPresent",
                ["peer": .string(name(of: peer)), "reason": "session", "address": .string(address), "dialled": .bool(session.initiatedLocally)])
            // A session we opened proves the address we dialled; one the peer opened comes from an
            // ephemeral port, so its address is remembered with the port its hello gives.
            if session.initiatedLocally, let remote = session.remoteEndpoint { remember(remote, of: peer) }
        case .absent(let peer, let reason):
            directory.pinging.remove(peer.id)
            // What it told us of its addresses was for that session only.
            directory.told[peer.id] = nil
            if reason == .goodbye { directory.dialer.leftNow(peer.id, at: now, jitter: Double.random(in: 0...1)) }
            logger.info("peer absent", metadata: ["peer.id": "\(peer.fingerprint)", "reason": "\(reason.rawValue)"])
            events.broadcast("peerAbsent", ["peer": .string(name(of: peer)), "reason": .string(reason.rawValue)])
            waits.resumeAll(.look, with: ())
        }
    }

    /// The machine's addresses changed, or it woke up: sessions whose local address is gone are
    /// closed, and every peer without a session is dialled now.
    func networkChanged(_ change: NetworkChange) async {
        // When the addresses cannot be read, the pings find the sessions that are really dead.
        let local = LocalAddresses.current().map { Set($0.map(Self.withoutZone)) }
        for id in await links.connectedPeerIDs {
            guard let local else { break }
            for s in await links.sessions(of: id) {
                if let here = s.localEndpoint?.host, !local.contains(Self.withoutZone(here)), here != "127.0.0.1", here != "::1" {
                    await links.close(s, because: .closedHere)
                }
            }
        }
        localAddresses = InterfaceAddresses.current() ?? localAddresses
        // After a resume, every session may be dead: ping them all now.
        if change == .resumed { directory.lastPing = [:] }
        directory.dialer.resetAll()
        logger.info("network changed; dialling paired peers", metadata: ["change": "\(change)"])
        waits.resumeAll(.look, with: ())
    }

    private static func withoutZone(_ address: String) -> String { address.split(separator: "%").first.map(String.init) ?? address }

    private func remember(_ where_: PeerEndpoint, of peer: PeerIdentity) {
        do { try endpoint.trustStore.rememberEndpoint(where_, ofPeer: peer.id, at: Date()) } catch {
            logger.warning("could not remember a peer's address", metadata: ["peer.id": "\(peer.fingerprint)", "error": "\(error)"])
        }
    }

    /// A pairing succeeded: the new peer is dialled now, at `where_` if the pairing went there
    /// (by address), and so are the configured addresses (one of them may be this peer's).
    func paired(_ peer: PeerIdentity, at where_: PeerEndpoint?) {
        if let where_ { remember(where_, of: peer) }
        directory.dialer.reset(peer.id)
        for e in settings.staticPeers { directory.dialer.reset("static:\(e)") }
        waits.resumeAll(.look, with: ())
    }

    // MARK: - Sessions and what peers tell us

    private func accepted(_ session: LinkSession) async {
        logger.info("peer opened a session", metadata: ["peer.id": "\(session.peer.fingerprint)"])
        await links.adopt(session)
    }

    /// The peer's hello: what it continues, and where its link listens. Refused if it speaks
    /// another protocol version.
    func greeted(by peer: PeerIdentity, hello: Hello, on session: LinkSession) -> Bool {
        guard hello.protocolVersion == PeerMessage.protocolVersion else { return false }
        directory.capabilities[peer.id] = PeerCapabilities(device: hello.device, types: Set(hello.types))
        if let port = hello.port.map(Int.init) {
            let onLoopback = session.remoteEndpoint.map { ToldAddresses.classify($0.host) == .loopback } ?? false
            directory.told[peer.id] = ToldAddresses.usable(hello.addresses, port: port, sessionOnLoopback: onLoopback, local: localAddresses)
            if !session.initiatedLocally, let source = session.remoteEndpoint { remember(PeerEndpoint(host: source.host, port: port), of: peer) }
        }
        return true
    }

    /// Our hello, as a request or as the answer to the peer's.
    func ownHello() -> Hello {
        Hello(device: settings.device, types: settings.types, port: port == 0 ? nil : Int64(port), addresses: LocalAddresses.shareable())
    }

    /// The answer to a peer's hello: ours, or why the versions do not match.
    func answer(hello: Hello, id: Int64, on session: LinkSession) async -> PeerMessage {
        guard greeted(by: session.peer, hello: hello, on: session) else { return PeerRequestHandler.unsupported(hello, id: id) }
        if !session.initiatedLocally { await links.chosenByPeer(session) }
        return .hello(id: id, ownHello())
    }

    func capabilities(of peerID: String) -> PeerCapabilities? { directory.capabilities[peerID] }

    func remoteChanged(_ items: [ActivitySummary], from peer: PeerIdentity, on session: LinkSession) {
        directory.learnt(items, peerID: peer.id, session: ObjectIdentifier(session))
        events.broadcast("remoteActivitiesChanged", ["peer": .string(name(of: peer)), "count": .integer(Int64(items.count))])
    }

    func remoteInvalidated(_ activityID: UUID, by peer: PeerIdentity) {
        directory.remote[peer.id]?.items.removeAll { $0.activityID == activityID }
        events.broadcast("remoteActivityInvalidated", ["peer": .string(name(of: peer)), "activity": .string(activityID.uuidString)])
    }

    /// A paired peer's activities: what we hold when it is still what the peer offers (its
    /// pushes on the open session, or its advert's sealed tokens, say so), else asked over the link.
    func activities(of peer: PeerView) async throws(ControlError) -> [ActivitySummary] {
        guard let trusted = peer.trusted else {
            throw .failed(code: "not-paired", message: PeerRequestError.notPaired(peer.name).description)
        }
        if let held = directory.fresh(trusted.identity.id, openSession: await links.sessionID(of: trusted.identity.id)) { return held }
        let reply = try await request(peer) { .list(id: $0) }
        guard case .activities(_, let items) = reply else {
            throw .failed(code: "unexpected-reply", message: "\(peer.name) answered the list with something else")
        }
        directory.learnt(items, peerID: trusted.identity.id, session: await links.sessionID(of: trusted.identity.id))
        return items
    }

    /// Tells every peer with an open session that our activities changed, each only of the types
    /// it declared.
    func tellChanged(_ items: [ActivitySummary]) async {
        for peer in await links.connectedPeerIDs {
            await links.notify(.changed(items: offered(items, to: peer)), peerID: peer)
        }
    }

    func tellInvalidated(_ activityID: UUID) async {
        for peer in await links.connectedPeerIDs { await links.notify(.invalidated(activityID: activityID), peerID: peer) }
    }

    /// The activities a peer may see: those of the types it declared (all, before its hello).
    func offered(_ items: [ActivitySummary], to peerID: String) -> [ActivitySummary] {
        guard let declared = directory.capabilities[peerID]?.types else { return items }
        return items.filter { declared.contains($0.type) }
    }

    /// After unpairing: sessions closed, nothing kept.
    func forget(_ peer: PeerIdentity) async {
        await links.drop(peerID: peer.id)
        directory.forget(peerID: peer.id)
    }

    /// Closes the sessions with a peer (troubleshooting; the benchmark's cold trials). The dialer
    /// waits its backoff before dialling it again.
    func disconnect(_ peer: PeerIdentity) async {
        directory.dialer.leftNow(peer.id, at: Date(), jitter: Double.random(in: 0...1))
        await links.drop(peerID: peer.id)
    }

    func name(of identity: PeerIdentity) -> String {
        (try? endpoint.trustStore.peer(withKey: identity.publicKey))??.name ?? identity.fingerprint
    }

    // MARK: - Requests to peers

    /// Every peer we know of: paired ones (with their advert, if one is listed), then the pairing
    /// adverts of machines whose window is open. Adverts no paired key recognises are not shown:
    /// they name nothing.
    func views() async -> [PeerView] {
        refreshRecognition()
        var views: [PeerView] = []
        for t in (try? endpoint.trustStore.peers()) ?? [] {
            views.append(await view(name: t.name, trusted: t, discovered: directory.listing(peerID: t.identity.id)))
        }
        for listing in directory.pairingListings { views.append(await view(name: listing.name, trusted: nil, discovered: listing)) }
        return views
    }

    /// Which sources list an advert: "mdns" (the link) and "zone" (unicast DNS-SD). Shown with a
    /// pairing advert too: one from a zone may have been written by anyone with the zone key.
    private func foundBy(_ advert: String) -> [String] {
        directory.sources.sources(listing: advert).map { $0 == 0 ? "mdns" : "zone" }
    }

    private func view(name: String, trusted: TrustedPeer?, discovered: DiscoveredPeer?) async -> PeerView {
        guard let trusted else {
            var v = PeerView(name: name, trusted: nil, discovered: discovered, present: false)
            if let discovered { v.foundBy = foundBy(discovered.name) }
            return v
        }
        let id = trusted.identity.id
        let sessions = await links.sessions(of: id)
        let current = await links.current(id)
        let remembered = endpoint.trustStore.endpoints(ofPeer: id)
        var v = PeerView(name: name, trusted: trusted, discovered: discovered, present: current != nil)
        v.sessions = sessions.count
        v.session = current.map { ($0.remoteEndpoint?.description ?? "?", $0.localEndpoint?.description ?? "?") }
        v.remembered = remembered.first
        if let discovered { v.foundBy += foundBy(discovered.name) }
        if directory.staticOwner.values.contains(id) { v.foundBy.append("static") }
        if !remembered.isEmpty { v.foundBy.append("remembered") }
        return v
    }

    /// Finds a peer by its advertised name, its paired name or its fingerprint.
    func resolve(_ text: String) async throws(ControlError) -> PeerView {
        let views = await views()
        let wanted = text.lowercased()
        // Two paired machines under one name (paired before names were made unique): which one
        // is meant is for the person to say, by fingerprint.
        let paired = views.filter { $0.trusted?.name == text }
        if paired.count > 1 {
            throw .failed(
                code: "ambiguous-peer",
                message:
                    "\(paired.count) paired machines are named '\(text)' (fingerprints \(paired.compactMap(\.fingerprint).joined(separator: ", "))); name one by its fingerprint, and unpair the one you do not know"
            )
        }
        if let v = paired.first ?? views.first(where: { $0.name == text }) ?? views.first(where: { $0.trusted?.name == text })
            ?? views.first(where: { $0.fingerprint?.lowercased() == wanted })
        {
            return v
        }
        let known = views.map(\.name).joined(separator: ", ")
        throw .failed(
            code: "unknown-peer",
            message: "no peer named '\(text)' is listed or paired"
                + (known.isEmpty ? "; none is visible yet (see `handoffctl peers`)" : " (known: \(known))"))
    }

    /// Finds the machine to pair with: a peer by name, waiting up to `listingGrace` for its
    /// pairing advert (its window may have opened a moment ago), unless the text is an address.
    func resolveForPairing(_ text: String) async throws(ControlError) -> PeerView {
        do throws(ControlError) { return try await resolve(text) } catch {
            if PeerEndpoint.isAddressLiteral(text) { throw error }
            _ = await waits.wait(for: .pairingListed(name: text), deadline: settings.listingGrace)
            return try await resolve(text)
        }
    }

    /// Sends a request to a paired peer, opening a session (and greeting the peer) if needed.
    func request(_ peer: PeerView, timeout: Duration = .seconds(5), _ make: @escaping @Sendable (Int64) -> PeerMessage) async throws(ControlError)
        -> PeerMessage
    {
        guard let trusted = peer.trusted else {
            throw .failed(code: "not-paired", message: PeerRequestError.notPaired(peer.name).description)
        }
        var peer = peer
        if peer.address == nil, await links.current(trusted.identity.id) == nil, let listed = await awaitListing(of: trusted.identity) {
            peer = listed
        }
        do throws(PeerRequestError) {
            return try await request(make, to: trusted.identity, at: peer.address, timeout: timeout)
        } catch {
            // Both machines dialled at once and the session this request went out on was the one
            // both closed: the other one is open, so the request goes again there, once.
            if case .sessionClosed = error, let other = await links.current(trusted.identity.id), other.channel.isActive {
                do throws(PeerRequestError) { return try await links.request(make, on: other, timeout: timeout) } catch {
                    throw .failed(code: error.code, message: error.description)
                }
            }
            throw .failed(code: error.code, message: error.description)
        }
    }

    private func request(
        _ make: @escaping @Sendable (Int64) -> PeerMessage, to identity: PeerIdentity, at address: (host: String, port: Int)?, timeout: Duration
    ) async throws(PeerRequestError) -> PeerMessage {
        let (session, opened) = try await links.session(to: identity, host: address?.host, port: address?.port)
        guard opened else { return try await links.request(make, on: session, timeout: timeout) }
        // The side that opens a session says hello first. The request follows at once, without
        // waiting for the peer's hello: the peer answers its hello before it reads the next
        // message, so the session costs no extra round trip.
        let greeting = ownHello()
        let hello = try await links.ask({ .hello(id: $0, greeting) }, on: session)
        let reply: PeerMessage
        do { reply = try await links.request(make, on: session, timeout: timeout) } catch {
            links.forget(hello)
            throw error
        }
        try greeted(try await links.answer(hello), on: session)
        return reply
    }

    /// The peer's answer to our hello: its own.
    private func greeted(_ reply: PeerMessage, on session: LinkSession) throws(PeerRequestError) {
        guard case .hello(_, let hello) = reply else { throw .unexpectedReply("something else than its hello") }
        if !greeted(by: session.peer, hello: hello, on: session) {
            throw .refused(
                code: "unsupported-version",
                message:
                    "\(hello.device.terminalSafe) speaks peer protocol \(hello.protocolVersion); this machine speaks \(PeerMessage.protocolVersion)")
        }
    }

    /// The view of a paired peer once discovery lists it, waiting up to `listingGrace` for its
    /// advert; nil if it is still not listed.
    func awaitListing(of identity: PeerIdentity) async -> PeerView? {
        refreshRecognition()
        if directory.listing(peerID: identity.id) == nil {
            _ = await waits.wait(for: .listed(peerID: identity.id), deadline: settings.listingGrace)
        }
        return await views().first { $0.trusted?.identity.id == identity.id && $0.discovered != nil }
    }
}
