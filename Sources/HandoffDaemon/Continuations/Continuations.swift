#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffConfig
import HandoffProtocol
import HandoffControl
import HandoffCore
import HandoffLink
import Logging
import ServiceLifecycle

/// Continuation on both sides: `continue` (fetch from the origin, dispatch here, report back),
/// `send` (push to a peer, which dispatches it), a peer's push dispatched here, and the origin
/// learning what became of its activity. Dispatch is the Dispatcher's one pass over live apps,
/// the app that declares the type, exec handlers and the opener. `run()` sends the reports to
/// origins, so that a continuation's answer never waits for them.
public final class Continuations: Service, Sendable {
    private let dispatcher: Dispatcher
    let live: LiveHandlerRegistry
    /// The installed apps: their types, and how to start one to continue an activity.
    let apps: Apps
    /// Continuation streams between the apps of a continuation.
    let streams: Streams
    private let peers: Peers
    private let activities: Activities
    private let events: ControlEvents
    private let logger: Logger
    private let reports: (stream: AsyncStream<(PeerMessage, peerID: PeerID)>, continuation: AsyncStream<(PeerMessage, peerID: PeerID)>.Continuation)

    init(
        configuration: HandoffConfiguration, apps: Apps, scenes: SceneBook, peers: Peers, activities: Activities, events: ControlEvents,
        logger: Logger
    ) {
        self.apps = apps
        streams = Streams(settings: configuration.streams, device: configuration.deviceName, peers: peers, activities: activities, logger: logger)
        let live = LiveHandlerRegistry(sceneFacts: { ids in await scenes.liveFacts(ids) })
        self.live = live
        var dispatcher = Dispatcher(
            declared: apps.declared, execHandlers: configuration.execHandlers, opener: configuration.openers.webpage, live: live)
        dispatcher.apps = apps
        self.dispatcher = dispatcher
        self.peers = peers
        self.activities = activities
        self.events = events
        self.logger = logger
        reports = AsyncStream.makeStream(of: (PeerMessage, peerID: PeerID).self)
    }

    public func run() async throws {
        let links = peers.links
        for await (report, peerID) in reports.stream.cancelOnGracefulShutdown() {
            await links.notify(report, peerIDs: [peerID])
        }
        await live.endAll()
        streams.closeAll()
    }

    /// Dispatches an activity here (continued from a peer, or pushed by one) and reports where it went.
    /// `pushedBy` is the peer's id when it pushed the activity (it then uses its share of the
    /// command slots), nil when this machine's user continues it.
    func dispatch(
        _ activity: UserActivity, from peer: String, preferredScene: UUID?, pushedBy: PeerID? = nil, identity: PeerIdentity? = nil
    ) async -> DispatchOutcome {
        // Noted before dispatch: a live app that takes it may ask for a stream at once.
        if let identity { streams.noteContinued(activity, from: identity) }
        let origin = identity.map { Origin(name: peer, fingerprint: $0.fingerprint) }
        let outcome = await dispatcher.dispatch(activity, preferredScene: preferredScene, requester: pushedBy, origin: origin)
        var fields: [String: PropertyListValue] = [
            "peer": .string(peer), "activity": .string(activity.id.canonicalString),
            "type": .string(activity.type.rawValue)
        ]
        fields.merge(outcome.fields) { $1 }
        switch outcome {
        case .failed(let failure):
            logger.notice(
                "continuation failed",
                metadata: [
                    "peer.name": "\(peer)", "activity.type": "\(activity.type.rawValue)",
                    "failure.code": "\(failure.code)"
                ])
            events.broadcast("continuationFailed", fields)
        default:
            logger.info(
                "activity continued",
                metadata: [
                    "peer.name": "\(peer)", "activity.type": "\(activity.type.rawValue)",
                    "dispatch.step": "\(outcome.step)"
                ])
            events.broadcast("continued", fields)
        }
        return outcome
    }

    /// `continue PEER ACTIVITY`: fetch from the origin, dispatch here, tell the origin the outcome.
    /// The fetch changes nothing here; the dispatch waits for `turn` (the client's earlier
    /// requests, `ControlTurn`).
    func continueActivity(peer name: String, activityID: UUID, scene: UUID?, after turn: ControlTurn = .now) async throws(ControlError)
        -> ContinuationReport
    {
        let peer = try await peers.resolveForRequest(name)
        let wasOpen = peer.present
        let reply = try await peers.request(peer) { .fetch(id: $0, activityID: activityID) }
        guard case .activity(_, let activity) = reply, activity.id == activityID else {
            throw .failed(code: .unexpectedReply, message: "\(peer.name) answered the fetch with something else than the activity")
        }
        await turn.wait()
        let outcome = await dispatch(activity, from: peer.name, preferredScene: scene, identity: peer.trusted?.identity)
        if let trusted = peer.trusted {
            reports.continuation.yield((.continued(activityID: activity.id, version: activity.version, outcome: outcome.remote), trusted.identity.id))
        }
        var report = outcome.report(activity: activity, peer: peer.name)
        report.type = activity.type.rawValue
        report.session = wasOpen ? "open" : "new"
        return report
    }

    /// `send ACTIVITY --to PEER`: push one of our current activities; the peer dispatches it.
    func push(activityID: UUID, to name: String) async throws(ControlError) -> ContinuationReport {
        guard let entry = await activities.entry(activityID) else {
            throw .failed(code: .notFound, message: "activity \(activityID.canonicalString) is not current here (see `handoffctl activities`)")
        }
        let peer = try await peers.resolveForRequest(name)
        if let audience = entry.audience, peer.trusted?.identity.id != audience {
            throw .failed(
                code: .notForPeer,
                message: "activity \(activityID.canonicalString) was published for another machine alone; publish it again for \(peer.name)")
        }
        if let id = peer.trusted?.identity.id, let declared = await peers.capabilities(of: id), !declared.types.contains(entry.activity.type.rawValue)
        {
            throw .failed(
                code: .typeNotDeclared,
                message:
                    "\(peer.name) does not continue '\(entry.activity.type.rawValue)' (its handoffd does not declare that type); declare it in activity_types there first"
            )
        }
        // Noted as given before the push: the peer's app may ask for a stream while it handles it.
        let activity = await activities.freshest(entry.activity, givenTo: peer.trusted?.identity.id)
        let reply = try await peers.request(peer, timeout: .seconds(60)) { .push(id: $0, activity: activity) }
        guard case .outcome(_, let outcome) = reply else {
            throw .failed(code: .unexpectedReply, message: "\(peer.name) answered the push with something else than an outcome")
        }
        await originLearned(activityID: activity.id, version: activity.version, outcome: outcome, by: peer.name)
        var report = ContinuationReport(outcome: (outcome == .continued ? "continued" : "failed"), activity: activityID, peer: peer.name)
        if case .failed(let code, let message) = outcome { (report.code, report.message) = (code, message) }
        return report
    }

    /// The origin's side of a continuation: userActivityWasContinued, or the failure the peer saw.
    func originLearned(activityID: UUID, version: UInt64, outcome: RemoteOutcome, by peer: String) async {
        var fields = outcome.fields
        fields["activity"] = .string(activityID.canonicalString)
        fields["peer"] = .string(peer)
        fields["version"] = .integer(Int64(bitPattern: version))
        let event: String
        switch outcome {
        case .continued:
            logger.info("a peer continued our activity", metadata: ["peer.name": "\(peer)", "activity.id": "\(activityID)"])
            event = "userActivityWasContinued"
        case .failed(let code, _):
            logger.notice(
                "a peer failed to continue our activity",
                metadata: [
                    "peer.name": "\(peer)", "activity.id": "\(activityID)",
                    "failure.code": "\(code)"
                ])
            event = "continuationFailedOnPeer"
        }
        await activities.tellOwner(of: activityID, event, fields)
        events.broadcast(event, fields)
    }
}

extension DispatchOutcome {
    /// Which dispatch step took it.
    var step: String {
        switch self {
        case .continuedByApp: "app"
        case .continuedByCommand: "exec"
        case .openedWebpage: "webpage"
        case .failed: "none"
        }
    }

    /// As the answer to `continue`.
    func report(activity: UserActivity, peer: String) -> ContinuationReport {
        var r = ContinuationReport(outcome: (remote == .continued ? "continued" : "failed"), activity: activity.id, peer: peer)
        if case .failed(let f) = self { (r.code, r.message) = (f.code, f.description) }
        r.step = step
        r.title = activity.title
        r.content = activity.targetContentIdentifier
        switch self {
        case .continuedByApp(let name, let scene): (r.handler, r.scene) = (name, scene)
        case .continuedByCommand(let command): r.handler = command.joined(separator: " ")
        case .openedWebpage(let url): r.url = url.absoluteString
        case .failed: break
        }
        return r
    }

    /// As the fields of events.
    var fields: [String: PropertyListValue] {
        var d = remote.fields
        d["step"] = .string(step)
        switch self {
        case .continuedByApp(let name, let scene):
            d["handler"] = .string(name)
            if let scene { d["scene"] = .string(scene.canonicalString) }
        case .continuedByCommand(let command): d["handler"] = .string(command.joined(separator: " "))
        case .openedWebpage(let url): d["url"] = .string(url.absoluteString)
        case .failed: break
        }
        return d
    }
}
