import Foundation
import HandoffConfig
import HandoffContent
import HandoffControl
import HandoffCore
import HandoffDiscovery
import HandoffLink
import Logging
import NIOCore

/// What the daemon is built from; `handoffd` assembles it from the configuration, tests from
/// temporary directories.
public struct DaemonParts: Sendable {
    public var configuration: HandoffConfiguration
    public var library: Library
    public var identity: IdentityKey
    public var trustStore: any TrustStore
    public var sceneStore: any SceneStore
    public var discovery: any Discovery
    public var logger: Logger

    public init(configuration: HandoffConfiguration, library: Library, identity: IdentityKey, trustStore: any TrustStore,
                sceneStore: any SceneStore, discovery: any Discovery, logger: Logger) {
        self.configuration = configuration
        self.library = library
        self.identity = identity
        self.trustStore = trustStore
        self.sceneStore = sceneStore
        self.discovery = discovery
        self.logger = logger
    }
}

/// handoffd's state and behaviour: current activities and their advert, peers and their
/// presence, continuation and push, pairing, scenes; the control operations act on it
/// (Daemon+Control.swift). The parts it drives (link, discovery, control socket) know nothing of it.
public actor Daemon {
    public let configuration: HandoffConfiguration
    let library: Library
    let identity: IdentityKey
    let trustStore: any TrustStore
    let discovery: any Discovery
    let endpoint: LinkEndpoint
    let links: PeerLinks
    let scenes: SceneBook
    let live = LiveHandlerRegistry()
    let refreshes = AnswerWaiters<UserActivity>()
    let logger: Logger
    let startedAt = Date()
    var dispatcher: Dispatcher!
    var requestHandler: PeerRequestHandler!

    var current = CurrentActivities()
    /// The control client that published each activity: asked to refresh it when it needsSave.
    var owners: [UUID: ControlClient] = [:]
    var watchers: [ObjectIdentifier: ControlClient] = [:]
    var presence = PeerPresence()
    var discovered: [String: DiscoveredPeer] = [:]
    /// What each peer said in its hello: device name and declared types (by identity id).
    var capabilities: [String: (device: String, types: [String])] = [:]
    /// Each peer's activities as it last pushed or listed them (by identity id).
    var remoteActivities: [String: [ActivitySummary]] = [:]
    /// The set last put in the TXT, to notice when one expires.
    var advertisedSet: [UUID: UInt64] = [:]
    var avahiUp = false
    /// Callers waiting for avahi-daemon, or for a paired peer's advert.
    var wakeups = Wakeups()
    /// How long a request waits for a paired peer's advert: mDNS resolution takes about a second,
    /// so a peer that started, or paired with us, a moment ago is usually not listed yet.
    var listingGrace: Duration = .seconds(3)
    var publishedName: String?
    var pairings: [String: (session: PairingSession, owner: ObjectIdentifier)] = [:]
    var incomingPairingWaiters: [(token: UUID, continuation: CheckedContinuation<PairingSession?, Never>)] = []
    var listeningPort = 0
    var tasks: [Task<Void, Never>] = []

    public init(parts: DaemonParts) throws {
        configuration = parts.configuration
        library = parts.library
        identity = parts.identity
        trustStore = parts.trustStore
        discovery = parts.discovery
        logger = parts.logger
        var link = LinkConfiguration()
        link.maxFrame = configuration.link.maxFrameBytes
        link.handshakeTimeout = .seconds(Int64(configuration.link.handshakeTimeoutSeconds))
        link.maxUnauthenticated = configuration.link.maxUnauthenticated
        link.maxUnauthenticatedPerSource = configuration.link.maxUnauthenticatedPerSource
        endpoint = LinkEndpoint(identity: identity, name: configuration.deviceName, trustStore: trustStore, configuration: link,
                                logger: parts.logger)
        links = PeerLinks(endpoint: endpoint, logger: parts.logger)
        let started = ContinuousClock.now
        scenes = try SceneBook(library: library, store: parts.sceneStore)
        let took = ContinuousClock.now - started
        let unreadable = scenes.unreadable
        logger.notice("scenes restored", metadata: ["scene.count": "\(scenes.restoredCount)", "scene.restoreMillis": "\(took.components.seconds * 1000 + took.components.attoseconds / 1_000_000_000_000_000)"])
        for record in unreadable {
            logger.error("a saved scene could not be read and is skipped", metadata: ["scene.record": "\(record)"])
        }
    }

    /// Writes every pending scene change (SIGTERM) and closes the scene store.
    public func flushScenes() async { await scenes.flush() }

    /// Builds the dispatcher and the peer request handler, which call back into the daemon.
    func wire() async throws {
        let handlers = try HandlerRegistry(HawkNotes.handlers(library: library))
        let router = ActivityRouter(declared: configuration.activityTypes, handlers: handlers)
        let scenes = self.scenes
        dispatcher = Dispatcher(router: router, execHandlers: configuration.execHandlers, opener: configuration.opener, live: live,
                                applyRoute: { (route, activity) throws(SceneError) -> UUID in
                                    try await scenes.apply(route, from: activity, preferred: DispatchContext.preferredScene)
                                })
        requestHandler = PeerRequestHandler(
            device: configuration.deviceName, declaredTypes: configuration.activityTypes.types.map(\.rawValue),
            current: { [weak self] in await self?.current ?? CurrentActivities() },
            refresh: { [weak self] activity in await self?.refreshFromOwner(activity) })
        await links.setServer { [weak self] message, session in await self?.serve(message, from: session) }
    }

    /// Starts the link listener and the control of peers and discovery; returns once listening.
    /// Component tests listen on loopback only.
    public func start(listeningOn host: String = "0.0.0.0") async throws {
        try await wire()
        do { listeningPort = try await endpoint.listen(host: host, port: configuration.peerPort) } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw DaemonStartError.portInUse(configuration.peerPort)
        }
        let endpoint = self.endpoint
        tasks.append(Task { [weak self] in
            for await session in endpoint.sessions { await self?.accepted(session) }
        })
        tasks.append(Task { [weak self] in
            for await pairing in endpoint.pairingRequests { await self?.pairingArrived(pairing) }
        })
        let events = discovery.events
        tasks.append(Task { [weak self] in
            for await event in events { await self?.handle(event) }
        })
        try publishAdvert()
        logger.info("handoffd started", metadata: ["device.name": "\(configuration.deviceName)", "link.port": "\(listeningPort)",
                                                   "identity.fingerprint": "\(identity.identity.fingerprint)"])
    }

    /// Waits until the Avahi client is up, or `timeout` passes; true if it is up.
    public func waitForAvahi(timeout: Duration) async -> Bool {
        if !avahiUp { await wait(for: .avahiUp, atMost: timeout) }
        return avahiUp
    }

    /// Waits until `reason` is woken (`wakeups.wake`) or `limit` passes. The caller checks its
    /// condition first, with no suspension before this call.
    func wait(for reason: WakeReason, atMost limit: Duration) async {
        let token = UUID()
        let timer = Timeout.after(limit) { Task { await self.endWait(token) } }
        await withCheckedContinuation { wakeups.add(token, reason, $0) }
        timer.cancel()
    }

    private func endWait(_ token: UUID) { wakeups.wake(token) }

    /// Once a second: presence pings, and expiry of advertised activities.
    public func tick(now: Date = Date()) async {
        guard listeningPort != 0 else { return }
        if advertisedChanged(at: now) { await activitiesChanged() }
        for name in presence.due(at: now) {
            guard let (peer, host, port) = reachablePaired(name) else { continue }
            Task { [weak self] in
                guard let self else { return }
                let ok = (try? await self.links.request({ .ping(id: $0) }, to: peer, host: host, port: port, timeout: .seconds(2))) != nil
                await self.pinged(name, ok: ok)
            }
        }
    }

    func pinged(_ name: String, ok: Bool) {
        let now = Date()
        let was = presence.isPresent(name, at: now)
        if ok { presence.answered(name, at: now) }
        let isNow = presence.isPresent(name, at: now)
        if was != isNow { broadcast(isNow ? "peerPresent" : "peerAbsent", ["peer": .string(name)]) }
    }

    /// Withdraws the advert, closes sessions and the listener. The caller flushes stores after.
    public func stop() async {
        for t in tasks { t.cancel() }
        discovery.shutdown()
        for p in pairings.values { p.session.cancel() }
        await links.closeAll()
        await endpoint.shutdown()
        logger.info("handoffd stopped")
    }

    // MARK: - Events to control clients

    func broadcast(_ event: String, _ fields: [String: PropertyListValue]) {
        for w in watchers.values { w.send(event: event, fields) }
    }

    func clientLeft(_ client: ControlClient) async {
        watchers[client.key] = nil
        await scenesAfterDisconnect(client)
        await live.remove(client)
        await refreshes.abandon(owner: client.key)
        for (id, owner) in owners where owner.key == client.key { owners[id] = nil }
        for (id, p) in pairings where p.owner == client.key {
            p.session.cancel()
            pairings[id] = nil
        }
    }
}

/// Why the daemon could not start serving.
public enum DaemonStartError: Error, CustomStringConvertible {
    case portInUse(Int)

    public var description: String {
        switch self {
        case .portInUse(let port):
            "the peer port \(port) is already in use (another handoffd, the system or a user instance, may hold it); set peer_port in the configuration to another port, or to 0 to take any free port (it is advertised)"
        }
    }
}

/// The scene a continuation should land in, when the request named one (`continue --scene`).
enum DispatchContext {
    @TaskLocal static var preferredScene: UUID?
}
