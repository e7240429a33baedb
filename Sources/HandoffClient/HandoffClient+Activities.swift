import Foundation
import HandoffControl
import HandoffCore

/// What an app does with activities, in NSUserActivity's words. Each call is one control request.
/// `events` has one reader: use `onContinue` and `onNeedsSave` on separate connections.
extension HandoffClient {
    /// Makes `activity` current (for `scene`, one per scene); paired machines can continue it.
    /// Returns a warning when it is larger than Handoff works well with.
    @discardableResult
    public func becomeCurrent(_ activity: UserActivity, scene: UUID? = nil) async throws(ClientError) -> String? {
        var args: [String: PropertyListValue] = ["activity": activity.propertyList]
        if let scene { args["scene"] = .string(scene.uuidString) }
        return try await request("publish", args)?.dictionaryValue?["warning"]?.stringValue
    }

    /// Stops offering it; peers stop listing it.
    public func resignCurrent(_ id: UUID) async throws(ClientError) {
        _ = try await request("resign", ["activity": .string(id.uuidString)])
    }

    /// Ends it for good; connected peers are told at once.
    public func invalidate(_ id: UUID) async throws(ClientError) {
        _ = try await request("invalidate", ["activity": .string(id.uuidString)])
    }

    /// Registers for continuations of `types` (onContinueUserActivity). `handler` runs for each
    /// offered activity and returns whether it took it; declining lets handoffd try its next step.
    /// Returns when the connection ends.
    public func onContinue(_ types: [String], name: String, _ handler: @escaping @Sendable (UserActivity) async -> Bool) async throws(ClientError) {
        _ = try await request("handle", ["types": .array(types.map(PropertyListValue.string)), "name": .string(name)])
        for await event in events where event.name == "continue" {
            guard let token = event.fields["token"], let value = event.fields["activity"],
                  let activity = try? UserActivity(propertyList: value) else { continue }
            let accepted = await handler(activity)
            _ = try await request("handled", ["token": token, "accepted": .bool(accepted)])
        }
    }

    /// Answers handoffd's needsSave questions (before a peer fetches an activity marked needsSave)
    /// with the app's fresh version. Returns when the connection ends.
    public func onNeedsSave(_ fresh: @escaping @Sendable (UUID) async -> UserActivity?) async throws(ClientError) {
        for await event in events where event.name == "needsSave" {
            guard let token = event.fields["token"], let id = event.fields["activity"]?.stringValue.flatMap(UUID.init(uuidString:)),
                  let activity = await fresh(id) else { continue }
            _ = try await request("refresh", ["token": token, "activity": activity.propertyList])
        }
    }
}
