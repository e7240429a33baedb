import Foundation
import HandoffContent
import HandoffControl
import HandoffCore

extension Daemon {
    /// Dispatches an activity here (continued from a peer, or pushed by one) and reports where it went.
    func dispatch(_ activity: UserActivity, from peer: String, preferredScene: UUID?) async -> DispatchOutcome {
        let dispatcher = self.dispatcher!
        let outcome = await DispatchContext.$preferredScene.withValue(preferredScene) { await dispatcher.dispatch(activity) }
        var fields: [String: PropertyListValue] = ["peer": .string(peer), "activity": .string(activity.id.uuidString),
                                                   "type": .string(activity.type.rawValue)]
        fields.merge(outcome.fields(library: library)) { $1 }
        switch outcome {
        case .failed(let failure):
            logger.notice("continuation failed", metadata: ["peer.name": "\(peer)", "activity.type": "\(activity.type.rawValue)",
                                                           "failure.code": "\(failure.code)"])
            broadcast("continuationFailed", fields)
        default:
            logger.info("activity continued", metadata: ["peer.name": "\(peer)", "activity.type": "\(activity.type.rawValue)",
                                                        "dispatch.step": "\(outcome.step)"])
            broadcast("continued", fields)
        }
        return outcome
    }

    /// `continue PEER ACTIVITY`: fetch from the origin, dispatch here, tell the origin the outcome.
    func continueActivity(peer name: String, activityID: UUID, scene: UUID?) async throws(ControlError) -> PropertyListValue {
        let peer = try await resolvePeer(name)
        let open = await links.connectedPeerIDs
        let wasOpen = peer.trusted.map { open.contains($0.identity.id) } ?? false
        let reply = try await request(peer) { .fetch(id: $0, activityID: activityID) }
        guard case .activity(_, let activity) = reply, activity.id == activityID else {
            throw .failed(code: "unexpected-reply", message: "\(peer.name) answered the fetch with something else than the activity")
        }
        let outcome = await dispatch(activity, from: peer.name, preferredScene: scene)
        if let trusted = peer.trusted {
            // The origin's report need not hold up the answer here.
            let links = self.links
            Task { await links.notify(.continued(activityID: activity.id, version: activity.version, outcome: outcome.remote), peerID: trusted.identity.id) }
        }
        return .dictionary(outcome.fields(library: library).merging(["activity": .string(activityID.uuidString),
                                                                     "type": .string(activity.type.rawValue), "peer": .string(peer.name),
                                                                     "session": .string(wasOpen ? "open" : "new")]) { $1 })
    }

    /// `send ACTIVITY --to PEER`: push one of our current activities; the peer dispatches it.
    func push(activityID: UUID, to name: String) async throws(ControlError) -> PropertyListValue {
        guard let entry = current.entry(id: activityID) else {
            throw .failed(code: "not-found", message: "activity \(activityID.uuidString) is not current here (see `handoffctl activities`)")
        }
        let peer = try await resolvePeer(name)
        let activity = await requestHandler.freshest(entry.activity)
        let reply = try await request(peer, timeout: .seconds(60)) { .push(id: $0, activity: activity) }
        guard case .outcome(_, let outcome) = reply else {
            throw .failed(code: "unexpected-reply", message: "\(peer.name) answered the push with something else than an outcome")
        }
        originLearned(activityID: activity.id, version: activity.version, outcome: outcome, by: peer.name)
        return .dictionary(outcome.fields.merging(["activity": .string(activityID.uuidString), "peer": .string(peer.name)]) { $1 })
    }

    /// The origin's side of a continuation: userActivityWasContinued, or the failure the peer saw.
    func originLearned(activityID: UUID, version: UInt64, outcome: RemoteOutcome, by peer: String) {
        var fields = outcome.fields
        fields["activity"] = .string(activityID.uuidString)
        fields["peer"] = .string(peer)
        fields["version"] = .integer(Int64(bitPattern: version))
        switch outcome {
        case .continued:
            logger.info("a peer continued our activity", metadata: ["peer.name": "\(peer)", "activity.id": "\(activityID)"])
            owners[activityID]?.send(event: "userActivityWasContinued", fields)
            broadcast("userActivityWasContinued", fields)
        case .failed(let code, _):
            logger.notice("a peer failed to continue our activity", metadata: ["peer.name": "\(peer)", "activity.id": "\(activityID)",
                                                                              "failure.code": "\(code)"])
            owners[activityID]?.send(event: "continuationFailedOnPeer", fields)
            broadcast("continuationFailedOnPeer", fields)
        }
    }
}

extension DispatchOutcome {
    /// Which dispatch step took it.
    var step: String {
        switch self {
        case .continuedByApp: "app"
        case .routedToScene: "scene"
        case .continuedByCommand: "exec"
        case .openedWebpage: "webpage"
        case .failed: "none"
        }
    }

    func fields(library: Library) -> [String: PropertyListValue] {
        var d = remote.fields
        d["step"] = .string(step)
        switch self {
        case .continuedByApp(let name): d["handler"] = .string(name)
        case .routedToScene(let scene, let route):
            d["scene"] = .string(scene.uuidString)
            d["content"] = .string(route.contentPath.description)
            d["book"] = .string(library.book(id: route.bookID)?.title ?? route.bookID.uuidString)
            if case .character(let c)? = route.navigationPath.last, let character = library.character(id: c) {
                d["character"] = .string(character.name)
            }
        case .continuedByCommand(let command): d["handler"] = .string(command.joined(separator: " "))
        case .openedWebpage(let url): d["url"] = .string(url.absoluteString)
        case .failed: break
        }
        return d
    }
}
