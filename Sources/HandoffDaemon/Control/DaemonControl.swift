#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif
import HandoffContent
import HandoffProtocol
import HandoffControl
import HandoffCore
import HandoffLink

/// The control operations (docs/CONTROL.md): each request, decoded into its typed request, goes
/// to the component that owns what it asks about, and its typed result is the answer. Errors
/// answer with their own code and message (ControlFailure).
struct DaemonControl: ControlOperations {
    let daemon: Daemon
    var peers: Peers { daemon.peers }
    var activities: Activities { daemon.activities }
    var scenes: SceneBook { daemon.scenes }

    func perform(_ request: ControlRequest, from client: ControlClient, after turn: ControlTurn) async -> Result<PropertyListValue?, ControlError> {
        guard let route = Self.routes[op: request.op] else { return .failure(.unknownOp(request.op)) }
        do throws(ControlError) { return .success(try await route.serve(self, request, client, turn)) } catch { return .failure(error) }
    }

    func place(of request: ControlRequest) -> ControlPlace { Self.routes[op: request.op]?.place ?? .inTurn }

    func connectionClosing(_ client: ControlClient) { daemon.pairing.abandon(client) }

    /// The client's watch, live handlers, questions, pairings and launching scenes end with it.
    func disconnected(_ client: ControlClient) async {
        daemon.events.left(client)
        for id in await scenes.connectionDropped(client.key) {
            daemon.logger.warning("a scene's saved state was discarded after two crashes at launch", metadata: ["scene.id": "\(id)"])
            daemon.events.broadcast("sceneStateDiscarded", ["scene": .string(id.canonicalString), "reason": "crashed twice at launch within 60 s"])
        }
        await daemon.continuations.live.remove(client)
        await activities.clientLeft(client)
        await daemon.pairing.clientLeft(client)
        await peers.clipboard.clientLeft(client.key)
    }

    /// Every operation the daemon serves (ControlRoutes), built once.
    static let routes: ControlRoutes = {
        var routes = ControlRoutes()
        peerRoutes(&routes)
        activityRoutes(&routes)
        sceneRoutes(&routes)
        streamRoutes(&routes)
        clipboardRoutes(&routes)
        return routes
    }()

    private static func peerRoutes(_ routes: inout ControlRoutes) {
        routes.on(StatusRequest.self) { c, _, _, _ in await c.status() }
        routes.on(PeersRequest.self) { c, _, _, _ in Listing(await c.peers.views().map(\.info)) }
        routes.on(TrustRequest.self) { c, _, _, _ in Listing(try c.peers.trusted().map(\.info)) }
        routes.on(AppsRequest.self) { c, _, _, _ in Listing(c.daemon.apps.installed.listing) }
        routes.on(PairRequest.self) { c, op, client, _ in
            let port = c.daemon.configuration.peerPort
            return try await c.daemon.pairing.start(with: op.peer, owner: client, defaultPort: port == 0 ? 7340 : port)
        }
        routes.on(PairAcceptRequest.self) { c, op, client, _ in try await c.daemon.pairing.accept(owner: client, timeout: .seconds(op.timeout)) }
        routes.on(PairConfirmRequest.self) { c, op, _, _ in try await c.daemon.pairing.confirm(op.pairing, accept: op.accept, code: op.code) }
        routes.on(UnpairRequest.self) { c, op, _, _ in try await c.daemon.pairing.unpair(op.peer) }
        routes.on(ConnectRequest.self) { c, op, _, _ in
            _ = try await c.peers.request(try await c.peers.resolve(op.peer)) { .ping(id: $0) }
            return Done()
        }
        routes.on(RotateAdvertRequest.self) { c, _, _, _ in AdvertRotated(name: await c.activities.rotateNow()) }
        routes.on(DisconnectRequest.self) { c, op, _, _ in
            if let t = try await c.peers.resolve(op.peer).trusted { await c.peers.disconnect(t.identity) }
            return Done()
        }
        routes.on(WatchRequest.self) { c, _, client, _ in
            c.daemon.events.watch(client)
            return Done()
        }
        routes.on(SearchRequest.self) { c, op, _, _ in Listing(try await c.daemon.search.search(op.query, limit: Int(op.limit))) }
        routes.on(SearchOpenRequest.self) { c, op, _, _ in try await c.openResult(op.result) }
    }

    /// A continue fetches the activity from the other machine before its turn: a client's
    /// continues then wait for the network side by side (docs/PERFORMANCE.md). A refresh
    /// answers a needsSave question that a peer's fetch waits on for at most 500 ms: it must not
    /// wait behind the client's scene saves. A handled answers a `continue` event, which a
    /// dispatch waits on: a handler that continues an activity itself, on its own connection,
    /// waited behind its own `continue` request until the answer's budget ran out.
    private static func activityRoutes(_ routes: inout ControlRoutes) {
        routes.on(ActivitiesRequest.self) { c, op, _, _ in try await c.listActivities(op) }
        routes.on(PublishRequest.self) { c, op, client, _ in try await c.publish(op, owner: client) }
        routes.on(ResignRequest.self) { c, op, _, _ in
            try await c.activities.end(op.activity, invalidate: false)
            return Done()
        }
        routes.on(InvalidateRequest.self) { c, op, _, _ in
            try await c.activities.end(op.activity, invalidate: true)
            return Done()
        }
        routes.on(RefreshRequest.self, place: .atOnce) { c, op, _, _ in
            guard await c.activities.answerRefresh(token: op.token, with: op.activity) else {
                throw ControlError.failed(code: .notFound, message: "no refresh with this token is waiting (it was answered late)")
            }
            return Done()
        }
        routes.on(ContinueRequest.self, place: .overlapping) { c, op, _, turn in
            try await c.daemon.continuations.continueActivity(peer: op.peer, activityID: op.activity, scene: op.scene, after: turn)
        }
        routes.on(SendRequest.self) { c, op, _, _ in try await c.daemon.continuations.push(activityID: op.activity, to: op.to) }
        routes.on(HandleRequest.self) { c, op, client, _ in
            await c.daemon.continuations.live.register(client, name: op.handlerName ?? "pid \(client.pid)", types: op.types, scene: op.scene)
            return Done()
        }
        routes.on(HandledRequest.self, place: .atOnce) { c, op, _, _ in
            guard await c.daemon.continuations.live.answer(token: op.token, accepted: op.accepted, scene: op.scene) else {
                throw ControlError.failed(code: .notFound, message: "no continuation with this token is waiting (it was answered late)")
            }
            return Done()
        }
    }

    private func publish(_ op: PublishRequest, owner client: ControlClient) async throws -> Published {
        var audience: TrustedPeer?
        if let to = op.to {
            guard let trusted = try await peers.resolve(to).trusted else {
                throw ControlError.failed(
                    code: .notPaired, message: "\(to) is not paired with this machine; an activity can be for a paired machine alone")
            }
            audience = trusted
        }
        let (version, size) = try await activities.publish(
            op.activity, scene: op.scene, owner: client, keep: op.keep, audience: audience?.identity.id)
        let warning =
            size.isAboveWarning
            ? "the activity is \(size.bytes) bytes, above the \(daemon.configuration.sizePolicy.warnAbove) bytes Handoff works best with; move large data to a shared store"
            : nil
        return Published(
            activity: op.activity.id, version: Int64(bitPattern: version), bytes: Int64(size.bytes), warning: warning,
            audience: audience?.identity.fingerprint)
    }

    func status() async -> DaemonStatus {
        let views = await peers.views()
        let avahi = await peers.avahi
        var advertisedAs: String?
        if case .up(let name?) = avahi { advertisedAs = name }
        var s = DaemonStatus(
            device: daemon.configuration.deviceName, fingerprint: peers.fingerprint, advertisedAs: advertisedAs,
            avahi: avahi.isUp ? "up" : "down", port: Int64(await peers.port),
            peersListed: Int64(views.filter { $0.discovered != nil }.count), peersPresent: Int64(views.filter(\.present).count),
            peersPaired: Int64(views.filter { $0.trusted != nil }.count), activities: Int64(await activities.entries.count),
            scenes: Int64(await scenes.count), sceneStore: scenes.storeProblem.map { "read-only: \($0)" } ?? "ok",
            sceneWritesFailed: Int64(await scenes.failedWrites), pairingLocked: daemon.pairing.isLocked,
            uptimeSeconds: (ContinuousClock.now - daemon.startedAt).components.seconds, pid: Int64(getpid()),
            wideArea: await peers.wideArea.map {
                switch $0 {
                case .working(let server): "ok (\(server))"
                case .failing(let why): "failing: \(why)"
                }
                // Configured, but the zone's first answer (or the key's verdict) has not come in.
            } ?? daemon.configuration.wideArea.map { _ in "starting" })
        s.avahiProblem = avahi.problem
        s.liveHandlers = Int64(await daemon.continuations.live.count)
        s.streams = Int64(daemon.continuations.streams.count)
        s.receiveDirectory = daemon.configuration.streams.receiveDirectory
        return s
    }

    func listActivities(_ op: ActivitiesRequest) async throws(ControlError) -> Listing<ActivityInfo> {
        if let peer = op.peer { return Listing(try await remoteList(peer)) }
        if op.remote { return Listing(await remoteListAll()) }
        let now = Date()
        return Listing(await activities.entries.map { $0.info(now: now) })
    }

    /// A paired peer's activities (Peers answers from what it holds when that is still current).
    private func remoteList(_ name: String) async throws(ControlError) -> [ActivityInfo] {
        let peer = try await peers.resolveForRequest(name)
        return try await peers.activities(of: peer).map { $0.info(peer: peer.name) }
    }

    /// Every paired, listed peer's activities; a peer that does not answer is left out and logged.
    /// The peers are asked side by side, each with the view in hand (not found again by name:
    /// two paired machines under one name would both be refused as ambiguous). One after
    /// another, a listed peer that never answered (a sleeping laptop whose advert lingers, or a
    /// paired machine that takes the session and says nothing) held every later one up to its
    /// bounds, about 18 s each; side by side, the listing takes as long as the slowest.
    private func remoteListAll() async -> [ActivityInfo] {
        let listed = await peers.views().filter { $0.trusted != nil && ($0.discovered != nil || $0.present) }
        let peers = self.peers, logger = daemon.logger
        let answers = await withTaskGroup(of: (Int, [ActivityInfo]).self) { group in
            for (n, peer) in listed.enumerated() {
                group.addTask {
                    do throws(ControlError) { return (n, try await peers.activities(of: peer).map { $0.info(peer: peer.name) }) } catch {
                        logger.notice("a peer did not list its activities", metadata: ["peer.name": "\(peer.name)", "error": "\(error.code)"])
                        return (n, [])
                    }
                }
            }
            var answers = [[ActivityInfo]](repeating: [], count: listed.count)
            for await (n, items) in group { answers[n] = items }
            return answers
        }
        // In the order the peers are listed, whichever answered first.
        return answers.flatMap { $0 }
    }
}

extension PeerRequestError: ControlFailure {
    public var message: String { description }
}

extension PeerView {
    var info: PeerInfo {
        PeerInfo(
            name: name, fingerprint: fingerprint, paired: trusted != nil, present: present, listed: discovered != nil, connected: connected,
            addresses: discovered?.addresses.map(\.description) ?? [], port: discovered.map { Int64($0.port) }, pairedName: trusted?.name,
            foundBy: foundBy, address: session?.remote, localAddress: session?.local, sessions: Int64(sessions), advert: discovered?.name,
            endpoint: endpoint?.description)
    }
}

extension TrustedPeer {
    var info: TrustedPeerInfo {
        TrustedPeerInfo(
            name: name, fingerprint: identity.fingerprint, pairedAt: pairedAt, theirAdvertisingGeneration: advertisingKey.map { Int64($0.generation) }
        )
    }
}

extension ActivitySummary {
    func info(peer: String) -> ActivityInfo {
        ActivityInfo(
            activity: activityID, type: type, version: Int64(bitPattern: version), title: title, scene: scene, peer: peer, updated: updated)
    }
}

extension CurrentActivities.Entry {
    func info(now: Date) -> ActivityInfo {
        ActivityInfo(
            activity: activity.id, type: activity.type.rawValue, version: Int64(bitPattern: activity.version), title: activity.title,
            scene: scene, expired: activity.isExpired(at: now), eligible: activity.isEligibleForHandoff, needsSave: activity.needsSave,
            updated: updated)
    }
}

extension StoredScene {
    var summary: SceneSummary {
        SceneSummary(scene: scene.id, role: role, created: created, updated: updated, content: scene.content, title: scene.currentActivity?.title)
    }

    var detail: SceneDetail {
        var d = SceneDetail(summary: summary, navigation: scene.navigation, storage: scene.storage.propertyList)
        d.discarded = discarded
        d.discardReason = discardReason
        d.currentActivity = scene.currentActivity.map { ($0.id, $0.type.rawValue, $0.title ?? "") }
        return d
    }
}

extension AvahiState {
    /// What `status` says while Avahi is not up: why, and where to look.
    var problem: String? {
        switch self {
        case .up: nil
        case .unknown: "no answer from avahi-daemon yet; if this lasts, check that it runs: `systemctl status avahi-daemon`"
        case .down(let why): "\(why); advertising resumes once avahi-daemon answers (`systemctl status avahi-daemon`)"
        }
    }
}
