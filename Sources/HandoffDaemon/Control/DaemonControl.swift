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
        do throws(ControlError) { return .success(try await route(request, client, turn)) } catch { return .failure(error) }
    }

    /// A continue fetches the activity from the other machine before its turn: a client's
    /// continues then wait for the network side by side (Benchmarks/scripts/bench-throughput.sh). A refresh
    /// answers a needsSave question that a peer's fetch waits on for at most 500 ms: it must not
    /// wait behind the client's scene saves. A handled answers a `continue` event, which a
    /// dispatch waits on: a handler that continues an activity itself, on its own connection,
    /// waited behind its own `continue` request until the answer's budget ran out.
    func place(of request: ControlRequest) -> ControlPlace {
        switch request.op {
        case ContinueRequest.name: .overlapping
        case RefreshRequest.name, HandledRequest.name: .atOnce
        default: .inTurn
        }
    }

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
    }

    /// `turn`: ended already, except for an `overlapping` request, which waits for it.
    private func route(_ r: ControlRequest, _ client: ControlClient, _ turn: ControlTurn) async throws(ControlError) -> PropertyListValue? {
        let pairing = daemon.pairing, continuations = daemon.continuations
        switch r.op {
        case StatusRequest.name: return try await answer(r) { (_: StatusRequest) in await status() }
        case PeersRequest.name: return try await answer(r) { (_: PeersRequest) in Listing(await peers.views().map(\.info)) }
        case TrustRequest.name: return try await answer(r) { (_: TrustRequest) in Listing(try peers.trusted().map(\.info)) }
        case AppsRequest.name: return try await answer(r) { (_: AppsRequest) in Listing(daemon.apps.installed.listing) }
        case PairRequest.name:
            return try await answer(r) { (op: PairRequest) in
                try await pairing.start(
                    with: op.peer, owner: client, defaultPort: daemon.configuration.peerPort == 0 ? 7340 : daemon.configuration.peerPort)
            }
        case PairAcceptRequest.name:
            return try await answer(r) { (op: PairAcceptRequest) in try await pairing.accept(owner: client, timeout: .seconds(op.timeout)) }
        case PairConfirmRequest.name:
            return try await answer(r) { (op: PairConfirmRequest) in try await pairing.confirm(op.pairing, accept: op.accept, code: op.code) }
        case UnpairRequest.name: return try await answer(r) { (op: UnpairRequest) in try await pairing.unpair(op.peer) }
        case ConnectRequest.name:
            return try await answer(r) { (op: ConnectRequest) in
                _ = try await peers.request(try await peers.resolve(op.peer)) { .ping(id: $0) }
                return Done()
            }
        case RotateAdvertRequest.name:
            return try await answer(r) { (_: RotateAdvertRequest) in AdvertRotated(name: await activities.rotateNow()) }
        case DisconnectRequest.name:
            return try await answer(r) { (op: DisconnectRequest) in
                if let t = try await peers.resolve(op.peer).trusted { await peers.disconnect(t.identity) }
                return Done()
            }
        case ActivitiesRequest.name: return try await answer(r) { (op: ActivitiesRequest) in try await listActivities(op) }
        case PublishRequest.name:
            return try await answer(r) { (op: PublishRequest) in
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
        case ResignRequest.name:
            return try await answer(r) { (op: ResignRequest) in
                try await activities.end(op.activity, invalidate: false)
                return Done()
            }
        case InvalidateRequest.name:
            return try await answer(r) { (op: InvalidateRequest) in
                try await activities.end(op.activity, invalidate: true)
                return Done()
            }
        case RefreshRequest.name:
            return try await answer(r) { (op: RefreshRequest) in
                guard await activities.answerRefresh(token: op.token, with: op.activity) else {
                    throw ControlError.failed(code: .notFound, message: "no refresh with this token is waiting (it was answered late)")
                }
                return Done()
            }
        case ContinueRequest.name:
            return try await answer(r) { (op: ContinueRequest) in
                try await continuations.continueActivity(peer: op.peer, activityID: op.activity, scene: op.scene, after: turn)
            }
        case SendRequest.name: return try await answer(r) { (op: SendRequest) in try await continuations.push(activityID: op.activity, to: op.to) }
        case HandleRequest.name:
            return try await answer(r) { (op: HandleRequest) in
                await continuations.live.register(client, name: op.handlerName ?? "pid \(client.pid)", types: op.types, scene: op.scene)
                return Done()
            }
        case HandledRequest.name:
            return try await answer(r) { (op: HandledRequest) in
                guard await continuations.live.answer(token: op.token, accepted: op.accepted, scene: op.scene) else {
                    throw ControlError.failed(code: .notFound, message: "no continuation with this token is waiting (it was answered late)")
                }
                return Done()
            }
        case WatchRequest.name:
            return try await answer(r) { (_: WatchRequest) in
                daemon.events.watch(client)
                return Done()
            }
        case SearchRequest.name:
            return try await answer(r) { (op: SearchRequest) in Listing(try await daemon.search.search(op.query, limit: Int(op.limit))) }
        case SearchOpenRequest.name: return try await answer(r) { (op: SearchOpenRequest) in try await openResult(op.result) }
        case StreamOpenRequest.name, StreamAcceptRequest.name, StreamRefuseRequest.name: return try routeStreams(r)
        default: return try await sceneRoute(r, client)
        }
    }

    /// Decodes the request as `Op`, runs `body`, encodes its result; any error answers with its
    /// own code (ControlFailure).
    func answer<Op: ControlOperation>(_ r: ControlRequest, _ body: (Op) async throws -> Op.Result) async throws(ControlError) -> PropertyListValue? {
        let op = try Op(request: r)
        do { return try await body(op).propertyList } catch { throw ControlError(error) }
    }

    private func status() async -> DaemonStatus {
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

    private func listActivities(_ op: ActivitiesRequest) async throws(ControlError) -> Listing<ActivityInfo> {
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
