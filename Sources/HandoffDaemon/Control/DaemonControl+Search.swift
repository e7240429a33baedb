#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffControl
import HandoffCore

extension DaemonControl {
    /// `search-open`: a result continued here. A paired machine's activity is fetched and
    /// continued like `continue`; this machine's activity or a window's is dispatched here as a
    /// continuation would be (to the live app, the app that declares it, a handler).
    func openResult(_ id: String) async throws(ControlError) -> ContinuationReport {
        guard let target = SearchItems.target(id) else {
            throw .badArgument(name: "result", reason: "'\(id)' is not a search result id (see `handoffctl search QUERY --json`)")
        }
        let here = daemon.configuration.deviceName
        let continuations = daemon.continuations
        func local(_ activity: UserActivity, scene: UUID?) async -> ContinuationReport {
            var report = await continuations.dispatch(activity, from: here, preferredScene: scene).report(activity: activity, peer: here)
            report.type = activity.type.rawValue
            return report
        }
        switch target {
        case .remote(let peer, let activity):
            return try await continuations.continueActivity(peer: peer, activityID: activity, scene: nil)
        case .activity(let id):
            guard let entry = await activities.entry(id) else { throw Self.gone(id) }
            return await local(entry.activity, scene: entry.scene)
        case .scene(let id):
            guard let stored = await scenes.scene(id) else { throw Self.gone(id) }
            guard let activity = stored.scene.currentActivity else {
                throw .failed(
                    code: .nothingToOpen,
                    message: "that window is doing nothing it could be continued with; open it in its app")
            }
            return await local(activity, scene: id)
        }
    }

    private static func gone(_ id: UUID) -> ControlError {
        .failed(code: .notFound, message: "\(id.canonicalString) is no longer there; search again")
    }
}
