#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffAdvert
import HandoffConfig
import HandoffClipboard
import HandoffContent
import HandoffControl
import HandoffCore
import HandoffDiscovery
import HandoffLink
import Logging
import NIOCore
import ServiceLifecycle

/// What the daemon is built from; `handoffd` assembles it from the configuration, tests from
/// temporary directories.
public struct DaemonParts: Sendable {
    public var configuration: HandoffConfiguration
    public var identity: IdentityKey
    public var trustStore: any TrustStore
    public var sceneStore: any SceneStore
    public var discovery: any Discovery
    /// The search index's store; nil: search is off.
    public var searchIndex: (any SearchIndex)?
    /// The secret of this machine's zone key (`wide_area:`): advert names then carry its tag, so
    /// that the DNS server can tell them ours (`OwnedNames`, docs/DEPLOYMENT.md).
    public var zoneKeySecret: [UInt8]?
    public var logger: Logger

    public init(
        configuration: HandoffConfiguration, identity: IdentityKey, trustStore: any TrustStore,
        sceneStore: any SceneStore, discovery: any Discovery, searchIndex: (any SearchIndex)? = nil, logger: Logger
    ) {
        self.configuration = configuration
        self.identity = identity
        self.trustStore = trustStore
        self.sceneStore = sceneStore
        self.discovery = discovery
        self.searchIndex = searchIndex
        self.logger = logger
    }
}

/// handoffd's centre, assembled: the components, each owning its state (docs/ARCHITECTURE.md).
/// `prepare` is the prelude (the link listens, the advert is published with its port); `services`
/// are run by handoffd's ServiceGroup in this order and shut down in reverse: the control socket
/// closes first, then pairing, continuation, the link (sessions closed), the advert (withdrawn),
/// and last the scenes (every pending write done).
public final class Daemon: Sendable {
    public let configuration: HandoffConfiguration
    let startedAt = ContinuousClock.now
    let events: ControlEvents
    let scenes: SceneBook
    let peers: Peers
    let activities: Activities
    let continuations: Continuations
    let pairing: Pairing
    let search: Search
    let logger: Logger

    public init(parts: DaemonParts) throws {
        configuration = parts.configuration
        let identity = parts.identity
        logger = parts.logger
        var link = LinkConfiguration()
        link.maxFrame = configuration.link.maxFrameBytes
        link.handshakeTimeout = .seconds(Int64(configuration.link.handshakeTimeoutSeconds))
        link.maxUnauthenticated = configuration.link.maxUnauthenticated
        link.maxUnauthenticatedPerSource = configuration.link.maxUnauthenticatedPerSource
        link.sessions.perPeer = configuration.link.maxSessionsPerPeer
        let unauthenticated = link.maxUnauthenticated + link.maxUnauthenticatedExempt
        let c = parts.configuration
        let total =
            DescriptorBudget.currentLimit().map {
                DescriptorBudget.sessions(
                    configured: c.link.maxSessions, limit: $0, unauthenticated: unauthenticated, controlClients: c.control.maxClients)
            } ?? c.link.maxSessions
        link.sessions.total = total
        if total < c.link.maxSessions {
            parts.logger.warning(
                "fewer sessions than configured: the descriptor limit (LimitNOFILE) leaves room for \(total)",
                metadata: ["limits.max_sessions": "\(c.link.maxSessions)"])
        }
        link.sessions.writeDeadline = .milliseconds(Int64(configuration.link.writeDeadlineMillis))
        let endpoint = LinkEndpoint(
            identity: identity, name: configuration.deviceName, trustStore: parts.trustStore, configuration: link,
            logger: parts.logger)
        events = ControlEvents()
        let started = ContinuousClock.now
        scenes = try SceneBook(store: parts.sceneStore)
        let took = ContinuousClock.now - started
        logger.notice(
            "scenes restored",
            metadata: [
                "scene.count": "\(scenes.restoredCount)",
                "scene.restoreMillis": "\(took.components.seconds * 1000 + took.components.attoseconds / 1_000_000_000_000_000)"
            ])
        for record in scenes.unreadable {
            logger.error("a saved scene could not be read and is skipped", metadata: ["scene.record": "\(record)"])
        }
        let apps = Apps(configuration: configuration, builtIn: HandoffConfiguration.builtInTypes, events: events, logger: logger)
        peers = Peers(
            endpoint: endpoint,
            settings: PeersSettings(
                device: configuration.deviceName, declared: apps.declared, staticPeers: configuration.staticPeers,
                clipboard: ClipboardSettings(configuration.clipboard),
                clipboardOffMarker: configuration.stateDirectory.isEmpty ? nil : configuration.stateDirectory + "/clipboard-off"),
            discovery: parts.discovery, events: events, logger: logger)
        activities = Activities(
            settings: ActivitiesSettings(device: configuration.deviceName, sizePolicy: configuration.sizePolicy, declared: apps.declared),
            advert: Advert(
                discovery: parts.discovery, trustStore: parts.trustStore, deviceName: configuration.deviceName,
                rotationInterval: .seconds(configuration.advertRotationSeconds),
                rewriteInterval: .milliseconds(Int64((configuration.advertRewriteSeconds * 1000).rounded())),
                owned: parts.zoneKeySecret.map(OwnedNames.init(secret:))),
            peers: peers, events: events, logger: logger)
        continuations = Continuations(
            configuration: configuration, apps: apps, scenes: scenes,
            peers: peers, activities: activities, events: events, logger: logger)
        pairing = Pairing(endpoint: endpoint, peers: peers, activities: activities, events: events, logger: logger)
        apps.onTypesChanged.withLockedValue { [peers] in $0 = { await peers.declaredTypesChanged() } }
        search = Search(
            index: parts.searchIndex, activities: activities, peers: peers, scenes: scenes, events: events, logger: logger)
        for notice in configuration.notices { logger.warning("\(notice)") }
        if let notice = Self.deviceNameNotice(configuration.deviceName) { logger.warning("\(notice)") }
    }

    /// A device name shaped like a tagged private advert name: unpaired machines resolve only
    /// untagged names (docs/PROTOCOL.md, "The advert"), so they would not find its pairing advert.
    static func deviceNameNotice(_ name: String) -> String? {
        guard AdvertNameTag.isTagged(name) else { return nil }
        return "device_name '\(name)' looks like a private advert's name (22 letters and digits 2-7): machines not yet paired "
            + "with this one will not find its pairing advert; set another device_name, or pair by address (handoffctl pair HOST[:PORT])"
    }

    /// The prelude: peers' messages are routed, the paired peers are dialled, the link listens,
    /// the advert is published with the link's port. Component tests listen on loopback only.
    public func prepare(listeningOn host: String = "0.0.0.0") async throws {
        let streams = continuations.streams
        peers.setStreamSink { session, bytes in streams.frame(bytes, on: session) }
        await peers.links.setOnAdopt { session in streams.adopted(session) }
        let server = PeerServer(
            peers: peers, activities: activities, continuations: continuations, refusePushesFrom: Set(configuration.refusePushesFrom), logger: logger)
        await peers.links.setServer(server.serve)
        // New addresses rotate the advert (Activities' run loop looks at once, not at its next pause's end).
        await peers.setOnNetworkChange { [activities] _ in activities.nudge() }
        // The first handshakes before the rest of the start: they are what a restarted daemon's
        // peers wait on to see it present. Every task runs on the one event loop, which reads
        // its sockets only when no task is left to run, so the first handshake message waited
        // for the advert and the services' first steps, and for the listener too once the dial
        // came before it (docs/PERFORMANCE.md, "Presence"). Bounded: an address that does not
        // answer holds the start 10 ms at most.
        // Our port goes in the hello, which is sent once the services run.
        await peers.dialAtOnce()
        await peers.firstDialsEnded(within: .milliseconds(10))
        let port = try await peers.listen(host: host, port: configuration.peerPort)
        try await activities.startAdvertising(port: port)
        logger.info(
            "handoffd started",
            metadata: [
                "device.name": "\(configuration.deviceName)", "link.port": "\(port)",
                "identity.fingerprint": "\(peers.fingerprint)"
            ])
    }

    /// In start order; a ServiceGroup stops them in reverse.
    public var services: [any Service] { [scenes, continuations.apps, activities, peers, continuations, pairing, search] }

    /// The installed apps (their files read again when they change).
    public var apps: Apps { continuations.apps }

    /// The control operations, for the control socket.
    public var operations: any ControlOperations { DaemonControl(daemon: self) }

    /// Waits until the Avahi client is up, or `timeout` passes; true if it is up.
    public func waitForAvahi(timeout: Duration) async -> Bool { await peers.waitForAvahi(timeout: timeout) }

    /// Each component's actor answers: the watchdog's proof that none is stuck.
    public func heartbeat() async {
        await peers.heartbeat()
        await activities.heartbeat()
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
