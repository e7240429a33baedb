import Foundation
import HandoffAsync
import HandoffControl
import HandoffCore
import HandoffDiscovery
import HandoffLink
import NIOCore
import Logging
import ServiceLifecycle

/// What a caller can wait for until `Peers` notices it.
enum PeerWait: Hashable, Sendable {
    /// The Avahi client is up (start-up's readiness).
    case avahiUp
    /// Discovery lists the peer with this key fingerprint.
    case listed(fingerprint: String)
}

/// The other machines: Avahi's listing of them, the sessions with paired ones (accepted and
/// opened), presence pings, what each declared in its hello, and each one's current activities.
/// Owns the link listener: `listen` in the prelude, then `run()` until shutdown closes every
/// session.
public actor Peers: Service {
    enum Phase: Equatable {
        case idle
        case listening(port: Int)
        case stopped
    }

    private nonisolated let endpoint: LinkEndpoint
    public nonisolated let links: PeerLinks
    /// Our side of a hello: this machine's name and the types it continues.
    private nonisolated let greeting: (device: String, types: [String])
    private let discovery: any Discovery
    private let events: ControlEvents
    private let logger: Logger
    private var directory = PeerDirectory()
    private var phase = Phase.idle
    private let waits = Waiters<PeerWait, Void>()
    /// How long a request waits for a paired peer's advert: mDNS resolution takes about a second,
    /// so a peer that started, or paired with us, a moment ago is usually not listed yet.
    private var listingGrace: Duration = .seconds(3)

    init(
        endpoint: LinkEndpoint, greeting: (device: String, types: [String]), discovery: any Discovery, events: ControlEvents,
        logger: Logger
    ) {
        self.endpoint = endpoint
        links = PeerLinks(endpoint: endpoint, logger: logger)
        self.greeting = greeting
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

    /// The paired peers, as the trust store holds them.
    nonisolated func trusted() throws -> [TrustedPeer] { try endpoint.trustStore.peers() }

    var port: Int { if case .listening(let p) = phase { p } else { 0 } }
    var avahi: AvahiState { directory.avahi }

    public func run() async throws {
        let endpoint = self.endpoint, links = self.links, events = discovery.events
        await withDiscardingTaskGroup { group in
            group.addTask { await links.run() }
            group.addTask {
                for await session in endpoint.sessions.cancelOnGracefulShutdown() { await self.accepted(session) }
            }
            group.addTask {
                for await event in events.cancelOnGracefulShutdown() { await self.handle(event) }
            }
            // Presence: once a second, a ping to each listed paired peer that is due one.
            while !Task.isShuttingDownGracefully && !Task.isCancelled {
                for (name, peer, address) in duePings() {
                    group.addTask {
                        let ok =
                            (try? await links.request(
                                { .ping(id: $0) }, to: peer, host: address.host, port: address.port,
                                timeout: .seconds(2))) != nil
                        await self.pinged(name, ok: ok)
                    }
                }
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(1)) }
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

    func setListingGrace(_ grace: Duration) { listingGrace = grace }

    func waiting(for reason: PeerWait) -> Int { waits.count(reason) }

    func discovered(_ name: String) -> DiscoveredPeer? { directory.discovered[name] }

    // MARK: - Discovery

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
            let isNew = directory.listed(peer)
            if let fp = peer.txt["fp"] {
                waits.resumeAll(.listed(fingerprint: fp), with: ())
                if let trusted = trustedPeer(fingerprint: fp) {
                    directory.advertRead(
                        AdvertTXT.read(peer.txt, key: trusted.advertisingKey), peerID: trusted.identity.id,
                        declared: Set(greeting.types.map(AdvertTXT.typeHash)))
                }
            }
            if isNew {
                logger.info("peer listed", metadata: ["peer.name": "\(peer.name)"])
                events.broadcast("peerAppeared", ["peer": .string(peer.name)])
            } else {
                events.broadcast("peerChanged", ["peer": .string(peer.name), "seq": .integer(Int64(bitPattern: peer.sequence))])
            }
        case .peerRemoved(let name):
            directory.withdrawn(name)
            logger.info("peer withdrawn", metadata: ["peer.name": "\(name)"])
            events.broadcast("peerRemoved", ["peer": .string(name)])
        case .foreignService(let name, let reason):
            logger.debug("ignoring a foreign _handoff._tcp service", metadata: ["service.name": "\(name)", "reason": "\(reason)"])
        case .failure(let error):
            logger.error("discovery failed", metadata: ["error": "\(error)"])
        }
    }

    // MARK: - Presence

    private func duePings() -> [(String, PeerIdentity, (host: String, port: Int))] {
        directory.presence.due(at: Date()).compactMap { name in
            guard let peer = directory.discovered[name], let fp = peer.txt["fp"], let trusted = trustedPeer(fingerprint: fp),
                let address = PeerView(name: name, trusted: trusted, discovered: peer, present: false, connected: false).address
            else { return nil }
            return (name, trusted.identity, address)
        }
    }

    func pinged(_ name: String, ok: Bool) {
        let now = Date()
        let was = directory.presence.isPresent(name, at: now)
        if ok { directory.presence.answered(name, at: now) }
        let isNow = directory.presence.isPresent(name, at: now)
        if was != isNow { events.broadcast(isNow ? "peerPresent" : "peerAbsent", ["peer": .string(name)]) }
    }

    /// Any message from a peer shows it is alive.
    func heard(from peer: PeerIdentity) {
        if let name = directory.listing(fingerprint: peer.fingerprint)?.name { pinged(name, ok: true) }
    }

    // MARK: - Sessions and what peers tell us

    private func accepted(_ session: LinkSession) async {
        logger.info("peer opened a session", metadata: ["peer.id": "\(session.peer.fingerprint)"])
        await links.adopt(session)
    }

    /// The peer's hello: what it continues. Refused if it speaks another protocol version.
    func greeted(by peer: PeerIdentity, version: Int64, device: String, types: [String]) -> Bool {
        guard version == PeerMessage.protocolVersion else { return false }
        directory.capabilities[peer.id] = PeerCapabilities(device: device, types: Set(types))
        return true
    }

    /// Our hello, as a request or as the answer to the peer's.
    nonisolated func hello(id: Int64) -> PeerMessage {
        .hello(id: id, protocolVersion: PeerMessage.protocolVersion, device: greeting.device, types: greeting.types)
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

    /// Closes the sessions with a peer (troubleshooting; the benchmark's cold trials).
    func disconnect(_ peer: PeerIdentity) async { await links.drop(peerID: peer.id) }

    func name(of identity: PeerIdentity) -> String {
        directory.listing(fingerprint: identity.fingerprint)?.name
            ?? (try? endpoint.trustStore.peer(withKey: identity.publicKey))??.name ?? identity.fingerprint
    }

    func trustedPeer(fingerprint: String) -> TrustedPeer? {
        ((try? endpoint.trustStore.peers()) ?? []).first { $0.identity.fingerprint == fingerprint }
    }

    // MARK: - Requests to peers

    /// Every peer we know of: listed ones, then paired ones not listed now.
    func views(now: Date = Date()) async -> [PeerView] {
        let trusted = (try? endpoint.trustStore.peers()) ?? []
        let connected = await links.connectedPeerIDs
        var views: [PeerView] = []
        var seen: Set<String> = []
        for peer in directory.discovered.values.sorted(by: { $0.name < $1.name }) {
            let t = peer.txt["fp"].flatMap { fp in trusted.first { $0.identity.fingerprint == fp } }
            if let t { seen.insert(t.identity.id) }
            views.append(
                PeerView(
                    name: peer.name, trusted: t, discovered: peer,
                    present: t != nil && directory.presence.isPresent(peer.name, at: now),
                    connected: t.map { connected.contains($0.identity.id) } ?? false))
        }
        for t in trusted where !seen.contains(t.identity.id) {
            views.append(PeerView(name: t.name, trusted: t, discovered: nil, present: false, connected: connected.contains(t.identity.id)))
        }
        return views
    }

    /// Finds a peer by its advertised name, its paired name or its fingerprint.
    func resolve(_ text: String) async throws(ControlError) -> PeerView {
        let views = await views()
        let wanted = text.lowercased()
        if let v = views.first(where: { $0.name == text }) ?? views.first(where: { $0.trusted?.name == text })
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

    /// Sends a request to a paired peer, opening a session (and greeting the peer) if needed.
    func request(_ peer: PeerView, timeout: Duration = .seconds(5), _ make: @escaping @Sendable (Int64) -> PeerMessage) async throws(ControlError)
        -> PeerMessage
    {
        guard let trusted = peer.trusted else {
            throw .failed(code: "not-paired", message: PeerRequestError.notPaired(peer.name).description)
        }
        var peer = peer
        if peer.discovered == nil, await !links.connectedPeerIDs.contains(trusted.identity.id),
            let listed = await awaitListing(of: trusted.identity)
        {
            peer = listed
        }
        let address = peer.address
        do throws(PeerRequestError) {
            let (session, opened) = try await links.session(to: trusted.identity, host: address?.host, port: address?.port)
            guard opened else { return try await links.request(make, on: session, timeout: timeout) }
            // The side that opens a session says hello first. The request follows at once, without
            // waiting for the peer's hello: the peer answers its hello before it reads the next
            // message, so the session costs no extra round trip.
            let hello = try await links.ask({ self.hello(id: $0) }, on: session)
            let reply: PeerMessage
            do { reply = try await links.request(make, on: session, timeout: timeout) } catch {
                links.forget(hello)
                throw error
            }
            try greeted(try await links.answer(hello), on: session)
            return reply
        } catch {
            throw .failed(code: error.code, message: error.description)
        }
    }

    /// The peer's answer to our hello: its own.
    private func greeted(_ reply: PeerMessage, on session: LinkSession) throws(PeerRequestError) {
        guard case .hello(_, let version, let device, let types) = reply else { throw .unexpectedReply("something else than its hello") }
        if !greeted(by: session.peer, version: version, device: device, types: types) {
            throw .refused(
                code: "unsupported-version",
                message: "\(device.terminalSafe) speaks peer protocol \(version); this machine speaks \(PeerMessage.protocolVersion)")
        }
    }

    /// The view of a paired peer once discovery lists it, waiting up to `listingGrace` for its
    /// advert; nil if it is still not listed.
    func awaitListing(of identity: PeerIdentity) async -> PeerView? {
        let fingerprint = identity.fingerprint
        if directory.listing(fingerprint: fingerprint) == nil {
            _ = await waits.wait(for: .listed(fingerprint: fingerprint), deadline: listingGrace)
        }
        return await views().first { $0.trusted?.identity.id == identity.id && $0.discovered != nil }
    }
}
