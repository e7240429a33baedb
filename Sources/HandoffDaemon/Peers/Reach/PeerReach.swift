#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif
import Dispatch
import HandoffAsync
import HandoffCore
import HandoffLink
import HandoffProtocol
import Logging
import NIOCore
import ServiceLifecycle

/// How we reach the paired peers: the link listener, the sessions (PeerLinks), dialling each
/// peer without one at its last-known addresses, its advert's and what its hello told (at start,
/// on a network change, after a resume, with a backoff), pinging each session, the hello on each,
/// and presence: a paired peer is present while a session with it is open. mDNS is only a hint
/// of where to dial (`located`, routed from the listing).
actor PeerReach {
    enum Phase: Equatable {
        case idle
        case listening(port: Int)
        case stopped
    }

    /// One peer (or configured address) to dial now, at each of its candidate endpoints in parallel.
    struct Dial: Sendable {
        let key: String
        /// nil for a configured address: any paired key may answer there.
        let peer: PeerIdentity?
        let candidates: [PeerEndpoint]
    }

    nonisolated let endpoint: LinkEndpoint
    nonisolated let links: PeerLinks
    let settings: PeersSettings
    let events: ControlEvents
    let logger: Logger
    var state = ReachState()
    private(set) var phase = Phase.idle
    /// The dial and ping loop's pause until its next look, cut short by a network change or an
    /// advert (`look`) and ended by graceful shutdown.
    private let nap = Nap()
    /// This machine's addresses, read at start and at every network change (not at every hello:
    /// getifaddrs on the path of a new session showed in the cold continue).
    var localAddresses = InterfaceAddresses.current() ?? []
    /// Our current activities, as last told to peers (nil until the first change): each new
    /// session is told them after the hellos (`tellOurActivities`).
    var ourActivities: [ActivitySummary]?
    /// Told of each network change and resume (`Activities`: the advert rotates on new addresses).
    private var onNetworkChange: (@Sendable (NetworkChange) -> Void)?
    /// The dials `dialAtOnce` started before `run()`: `run()` takes them over.
    private var started: [(key: String, candidate: PeerEndpoint, session: EventLoopFuture<LinkSession>)] = []
    /// Succeeds once each of those dials has ended, with a session or not.
    private var startedEnded: EventLoopFuture<Void>?
    /// Each present peer's name as `peerPresent` gave it, for its `peerAbsent`.
    private var shownNames: [PeerID: String] = [:]

    init(endpoint: LinkEndpoint, settings: PeersSettings, events: ControlEvents, logger: Logger) {
        self.endpoint = endpoint
        links = PeerLinks(endpoint: endpoint, logger: logger)
        self.settings = settings
        self.events = events
        self.logger = logger
    }

    func setOnNetworkChange(_ action: @escaping @Sendable (NetworkChange) -> Void) { onNetworkChange = action }
    func tellNetworkChanged(_ change: NetworkChange) { onNetworkChange?(change) }

    /// Binds the link listener; the port is what the advert carries.
    func listen(host: String, port: Int) async throws -> Int {
        let bound: Int
        do { bound = try await endpoint.listen(host: host, port: port) } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw DaemonStartError.portInUse(port)
        }
        phase = .listening(port: bound)
        return bound
    }

    var port: Int { if case .listening(let p) = phase { p } else { 0 } }

    func heartbeat() {}

    /// Wakes the dial and ping loop now.
    func look() { nap.nudge() }

    /// Starts dialling every paired peer due now, in the prelude before `listen`: a restarted
    /// machine is present to its peers before its services even run.
    func dialAtOnce() async {
        for dial in await dueDials() {
            for candidate in dial.candidates {
                started.append((dial.key, candidate, endpoint.startConnect(host: candidate.host, port: candidate.port, expecting: dial.peer)))
            }
        }
        if let loop = started.first?.session.eventLoop {
            startedEnded = EventLoopFuture.whenAllComplete(started.map(\.session), on: loop).map { _ in }
        }
    }

    /// Until each dial `dialAtOnce` started has ended (a session, or a failure), or `bound` has
    /// passed: at once if there were none.
    func firstDialsEnded(within bound: Duration) async {
        guard let ended = startedEnded else { return }
        _ = await Timeout.race(bound) { try? await ended.get() }
    }

    /// Accepts, reads and dials until graceful shutdown, then says goodbye on every session.
    func run() async {
        let endpoint = self.endpoint, links = self.links
        let changes = NetworkChanges.watch()
        if changes == nil { logger.notice("no rtnetlink here: network changes are noticed by the dial backoff and mDNS only") }
        await withDiscardingTaskGroup { group in
            group.addTask { await links.run() }
            group.addTask {
                for await session in endpoint.sessions.cancelOnGracefulShutdown() { await self.accepted(session) }
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
            // those with one; looks again when the next of those is due (every half second while
            // anything is under way), or at once when woken.
            var suspend = SuspendDetector()
            let nap = self.nap
            await withGracefulShutdownHandler {
                while !nap.hasEnded && !Task.isCancelled {
                    if suspend.resumed() { await networkChanged(.resumed) }
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
                    await closeUnreplaced()
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
                    // The loop's timer, not a wait under `cancelWhenGracefulShutdown`: that made a
                    // task group and two child tasks every half second of an idle daemon's life.
                    await nap.sleep(for: await untilNextLook())
                }
            } onGracefulShutdown: {
                nap.end()
            }
            phase = .stopped
            await links.closeAll()
            await endpoint.shutdown()
            group.cancelAll()
        }
        logger.info("link closed")
    }

    /// Where the listing says a paired peer's advert is: remembered as a dial candidate, and the
    /// peer dialled at once when that is new.
    func located(_ peerID: PeerID, at endpoints: [PeerEndpoint], moved: Bool) {
        state.advertised[peerID] = endpoints.isEmpty ? nil : endpoints
        guard moved else { return }
        state.dialer.reset(peerID.rawValue)
        look()
    }

    // MARK: - Dialling

    /// Paired peers without a session, and configured addresses whose peer has none, that are due.
    /// Which are due is asked first: the remembered endpoints are a query each, and a restarted
    /// hub looked again at every one of 49 adverts while its 49 dials were still in flight.
    private func dueDials() async -> [Dial] {
        let connected = await links.connectedPeerIDs
        let now = ReachClock.now()
        let (unconnected, statics) = self.unconnected(connected)
        let due = Set(state.dialer.due(unconnected.map(\.identity.id.rawValue), at: now))
        var dials: [Dial] = []
        for t in unconnected where due.contains(t.identity.id.rawValue) {
            let candidates = state.candidates(remembered: endpoint.trustStore.endpoints(ofPeer: t.identity.id), peerID: t.identity.id)
            if !candidates.isEmpty { dials.append(Dial(key: t.identity.id.rawValue, peer: t.identity, candidates: candidates)) }
        }
        let dueStatics = Set(state.dialer.due(statics.map { "static:\($0)" }, at: now))
        for e in statics where dueStatics.contains("static:\(e)") { dials.append(Dial(key: "static:\(e)", peer: nil, candidates: [e])) }
        for d in dials { state.dialer.begin(d.key, attempts: d.candidates.count) }
        return dials
    }

    /// The paired peers without a session (or with a silent one), and the configured addresses
    /// whose peer has none: what the loop dials.
    private func unconnected(_ connected: Set<PeerID>) -> (peers: [TrustedPeer], statics: [PeerEndpoint]) {
        let peers = ((try? endpoint.trustStore.peers()) ?? []).filter {
            !connected.contains($0.identity.id) || state.stalled[$0.identity.id] != nil
        }
        return (peers, settings.staticPeers.filter { e in state.staticOwner[e].map { !connected.contains($0) } ?? true })
    }

    /// How long the loop pauses: until the next ping or dial is due (`ReachState.nextLook`).
    private func untilNextLook() async -> Duration {
        let connected = await links.connectedPeerIDs
        let settled = await !links.hasRetired
        let (peers, statics) = unconnected(connected)
        let now = ReachClock.now()
        let next = state.nextLook(
            connected: connected, unconnected: peers.map(\.identity.id.rawValue) + statics.map { "static:\($0)" }, settled: settled,
            pingInterval: settings.pingInterval, at: now)
        // Never a busy loop, whatever the clock says.
        return .microseconds(Int64(max(0.01, next - now) * 1_000_000))
    }

    private static func outcome(_ dial: @Sendable () async throws -> LinkSession) async -> Result<LinkSession, any Error> {
        do { return .success(try await dial()) } catch { return .failure(error) }
    }

    /// One dial attempt ended. The round's first session is adopted (if the peer dialled us
    /// meanwhile, the session table keeps one of the two on both ends); a later one of the same
    /// round (another address of the same peer) is closed at once.
    private func dialed(_ key: String, at candidate: PeerEndpoint, outcome: Result<LinkSession, any Error>) async {
        let session = try? outcome.get()
        let first = state.dialer.attempted(key, ok: session != nil, at: ReachClock.now(), jitter: Double.random(in: 0...1))
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
            state.staticOwner[candidate] = session.peer.id
            // A configured address of a peer already present (found another way): nothing new.
            if await links.current(session.peer.id) != nil {
                await session.close()
                return
            }
        }
        logger.info("dialled a paired peer", metadata: ["peer.id": "\(session.peer.fingerprint)", "peer.address": "\(candidate)"])
        // A session dialled to replace a silent one: the session table retires the silent one.
        state.stalled[session.peer.id] = nil
        await links.adopt(session)
        await greet(session)
    }

    // MARK: - Pings and presence

    /// Every open session of each peer due a ping: a stale one the peer opened (it dialled again
    /// from a new address, and its close never reached us) is found this way too.
    private func duePings() async -> [(PeerID, LinkSession)] {
        let connected = await links.connectedPeerIDs
        var due: [(PeerID, LinkSession)] = []
        for id in state.duePings(among: connected, at: ReachClock.now(), interval: settings.pingInterval) {
            let sessions = await links.sessions(of: id)
            if sessions.isEmpty { state.pinging.remove(id) }
            due += sessions.map { (id, $0) }
        }
        return due
    }

    /// A ping that got no answer in time: the session is suspected (`suspectStalled`), and closed
    /// if no fresh one replaces it in time: a half-open connection must not stay in use (TCP
    /// alone would keep it for many minutes).
    private func pinged(_ peerID: PeerID, session: LinkSession, timedOut: Bool) async {
        state.pinging.remove(peerID)
        if timedOut { await suspectStalled(session) }
    }

    /// A peer's first session authenticated, or its last one ended.
    private func presenceChanged(_ change: LinkPresence) async {
        let now = ReachClock.now()
        switch change {
        case .present(let peer, let session):
            let address = session.remoteEndpoint?.description ?? "?"
            state.lastPing[peer.id] = now
            let shown = name(of: peer)
            shownNames[peer.id] = shown
            logger.info("peer present", metadata: ["peer.id": "\(peer.fingerprint)", "peer.address": "\(address)"])
            events.broadcast(
                "peerPresent",
                ["peer": .string(shown), "reason": "session", "address": .string(address), "dialled": .bool(session.initiatedLocally)])
            // A session we opened proves the address we dialled; one the peer opened comes from an
            // ephemeral port, so its address is remembered with the port its hello gives.
            if session.initiatedLocally, let remote = session.remoteEndpoint { remember(remote, of: peer) }
        case .absent(let peer, let reason):
            state.pinging.remove(peer.id)
            state.stalled[peer.id] = nil
            // What it told us of its addresses was for that session only.
            state.told[peer.id] = nil
            if reason == .goodbye { state.dialer.leftNow(peer.id.rawValue, at: now, jitter: Double.random(in: 0...1)) }
            logger.info("peer absent", metadata: ["peer.id": "\(peer.fingerprint)", "reason": "\(reason.rawValue)"])
            // By the name it was present under: a peer that unpaired this machine is unpinned first.
            let shown = shownNames.removeValue(forKey: peer.id) ?? name(of: peer)
            events.broadcast("peerAbsent", ["peer": .string(shown), "reason": .string(reason.rawValue)])
            look()
        }
    }

    private func accepted(_ session: LinkSession) async {
        logger.info("peer opened a session", metadata: ["peer.id": "\(session.peer.fingerprint)"])
        await links.adopt(session)
    }

    /// The write (once per endpoint and refresh period) happens on a queue of its own: tasks run
    /// on the event loop, and a synced SQLite commit there would hold up every socket (a restarted
    /// hub opens 49 sessions at once).
    func remember(_ where_: PeerEndpoint, of peer: PeerIdentity) {
        let trustStore = endpoint.trustStore, logger = logger
        Self.writes.async {
            do { try trustStore.rememberEndpoint(where_, ofPeer: peer.id, at: Date()) } catch {
                logger.warning("could not remember a peer's address", metadata: ["peer.id": "\(peer.fingerprint)", "error": "\(error)"])
            }
        }
    }

    private static let writes = DispatchQueue(label: "handoffd.remember")

    nonisolated func name(of identity: PeerIdentity) -> String {
        (try? endpoint.trustStore.peer(withID: identity.id))??.name ?? identity.fingerprint
    }

    /// A paired machine's name; nil if it is not paired.
    nonisolated func name(ofPeerID id: PeerID) -> String? { (try? endpoint.trustStore.peer(withID: id))??.name }
}
