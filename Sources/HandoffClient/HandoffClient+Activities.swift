#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffControl
import HandoffCore

/// What an app does with activities, in NSUserActivity's words. Each call is one control request.
/// `events` has one reader: use `onContinue` and `onNeedsSave` on separate connections.
extension HandoffClient {
    /// Makes `activity` current (for `scene`, one per scene); paired machines can continue it.
    /// It ends when this connection closes (the app quit or crashed), unless `keep`.
    /// Returns a warning when it is larger than Handoff works well with.
    @discardableResult
    public func becomeCurrent(_ activity: UserActivity, scene: UUID? = nil, keep: Bool = false) async throws(ClientError) -> String? {
        try await perform(PublishRequest(activity: activity, scene: scene, keep: keep)).warning
    }

    /// Stops offering it; peers stop listing it.
    public func resignCurrent(_ id: UUID) async throws(ClientError) {
        _ = try await perform(ResignRequest(activity: id))
    }

    /// Ends it for good; connected peers are told at once.
    public func invalidate(_ id: UUID) async throws(ClientError) {
        _ = try await perform(InvalidateRequest(activity: id))
    }

    /// Registers for continuations of `types` (onContinueUserActivity). `handler` runs for each
    /// offered activity and returns whether it took it; declining lets handoffd try its next step.
    /// Returns when the connection ends.
    /// `scene`: the window it continues into (of several windows, the one showing the activity's
    /// target content is offered it first, then the one changed last).
    public func onContinue(
        _ types: [String], name: String, scene: UUID? = nil, _ handler: @escaping @Sendable (UserActivity) async -> Bool
    ) async throws(ClientError) {
        _ = try await perform(HandleRequest(types: types, name: name, scene: scene))
        for await event in events where event.name == "continue" {
            guard let token = event.fields["token"]?.stringValue, let value = event.fields["activity"],
                let activity = try? UserActivity(propertyList: value)
            else { continue }
            let accepted = await handler(activity)
            _ = try await perform(HandledRequest(token: token, accepted: accepted))
        }
    }

    /// As `onContinue`, `handler` saying in which of the app's scenes (windows) it took the
    /// activity, nil to decline: the continuation's report names that scene on both machines.
    public func onContinueInScene(
        _ types: [String], name: String, _ handler: @escaping @Sendable (UserActivity) async -> UUID?
    ) async throws(ClientError) {
        _ = try await perform(HandleRequest(types: types, name: name))
        for await event in events where event.name == "continue" {
            guard let token = event.fields["token"]?.stringValue, let value = event.fields["activity"],
                let activity = try? UserActivity(propertyList: value)
            else { continue }
            let scene = await handler(activity)
            _ = try await perform(HandledRequest(token: token, accepted: scene != nil, scene: scene))
        }
    }

    /// Answers handoffd's needsSave questions (before a peer fetches an activity marked needsSave)
    /// with the app's fresh version. Returns when the connection ends.
    public func onNeedsSave(_ fresh: @escaping @Sendable (UUID) async -> UserActivity?) async throws(ClientError) {
        for await event in events where event.name == "needsSave" {
            guard let token = event.fields["token"]?.stringValue, let id = event.fields["activity"]?.stringValue.flatMap(UUID.init(uuidString:)),
                let activity = await fresh(id)
            else { continue }
            _ = try await perform(RefreshRequest(token: token, activity: activity))
        }
    }
}
