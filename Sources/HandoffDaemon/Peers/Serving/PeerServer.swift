#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore
import HandoffLink
import HandoffProtocol
import Logging

/// Where each message a peer sends goes: its hello and what it tells of its activities to Peers,
/// list and fetch to Activities, pushes and continuation reports to Continuations.
struct PeerServer: Sendable {
    let peers: Peers
    let activities: Activities
    let continuations: Continuations
    /// Names or fingerprints (or `*`) of the paired machines whose pushes are refused.
    let refusePushesFrom: Set<String>
    let logger: Logger

    /// Whether pushes from `peer` are refused: by `*`, its fingerprint or its name. Nothing is
    /// spelled or looked up when no machine is refused (the fingerprint and the name were most
    /// of serving a push).
    func refuses(_ peer: PeerIdentity) -> Bool {
        guard !refusePushesFrom.isEmpty else { return false }
        return refusePushesFrom.contains("*") || refusePushesFrom.contains(peer.fingerprint) || refusePushesFrom.contains(peers.name(of: peer))
    }

    static let refused = RemoteOutcome.failed(
        code: .pushRefused,
        message: "this machine does not take pushes from yours (refuse_pushes_from in its handoffd.yaml); continue from here instead")

    func serve(_ message: PeerMessage, from session: LinkSession) async -> PeerMessage? {
        let peer = session.peer
        switch message {
        case .hello(let id, let hello):
            // The answer is our hello, or why the versions do not match.
            return await peers.answer(hello: hello, id: id, on: session)
        case .push(let id, _) where refuses(peer):
            return .outcome(id: id, outcome: Self.refused)
        case .push(let id, let activity):
            // Debug: its dispatch logs where it went ("activity continued" or "continuation
            // failed", with the peer's name and the type) at info; two journal lines a push were
            // one too many on the push's path.
            logger.debug("peer pushed an activity", metadata: ["peer.id": "\(peer.fingerprint)", "activity.type": "\(activity.type.rawValue)"])
            let outcome = await continuations.dispatch(
                activity, from: peers.name(of: peer), preferredScene: nil, pushedBy: peer.id, identity: peer)
            return .outcome(id: id, outcome: outcome.remote)
        case .continued(let activityID, let version, let outcome):
            // Believed only from the peer that fetched the activity, once: no app is told of a
            // continuation that never happened.
            guard await activities.acceptReport(activityID, by: peer.id) else {
                logger.debug("ignored a continuation report for an activity the peer did not fetch", metadata: ["peer.id": "\(peer.fingerprint)"])
                return nil
            }
            await continuations.originLearned(activityID: activityID, version: version, outcome: outcome, by: peers.name(of: peer))
            return nil
        case .changed(let items):
            await peers.remoteChanged(items, from: peer, on: session)
            return nil
        case .invalidated(let activityID):
            await peers.remoteInvalidated(activityID, by: peer)
            return nil
        case .streamOpen(let id, let stream, let activityID, let window):
            return await continuations.streams.offered(stream: stream, activityID: activityID, window: window, requestID: id, on: session)
        case .clipboard(let clipboard):
            return await peers.clipboard.heard(clipboard, from: peer)
        case .error(nil, let code, _):
            logger.notice("peer reported an error", metadata: ["peer.id": "\(peer.fingerprint)", "error.code": "\(code)"])
            return nil
        default:
            return await activities.answer(message, from: peer.id)
        }
    }
}
