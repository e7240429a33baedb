#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffContent
import HandoffControl
import HandoffCore

extension DaemonControl {
    /// The scene lifecycle operations (docs/CONTROL.md, "Scenes").
    static func sceneRoutes(_ routes: inout ControlRoutes) {
        routes.on(ScenesRequest.self) { c, _, _, _ in Listing(await c.scenes.all.map { $0.summary }) }
        routes.on(SceneRequest.self) { c, op, _, _ in
            guard let s = await c.scenes.scene(op.scene) else {
                throw ControlError.failed(code: .notFound, message: "no scene \(op.scene.canonicalString) (see `handoffctl scenes`)")
            }
            return s.detail
        }
        routes.on(SceneConnectRequest.self) { c, op, client, _ in
            let (s, restored) = try await c.scenes.connect(op.scene, role: op.role, by: client.key)
            var d = s.detail
            d.restored = restored
            d.restorationActivity = s.scene.restorationActivity()
            return d
        }
        routes.on(SceneUpdateRequest.self) { c, op, _, _ in
            let change = try SceneChange(op)
            let s = try await c.scenes.update(op.scene) { @Sendable (scene: inout Scene) throws(SceneError) in
                try change.apply(to: &scene)
            }
            // The summary, not the storage: an acknowledgement should not carry the whole scene back.
            return s.summary
        }
        routes.on(SceneLaunchedRequest.self) { c, op, _, _ in
            await c.scenes.launched(op.scene)
            return Done()
        }
        routes.on(SceneDisconnectRequest.self) { c, op, _, _ in
            await c.scenes.disconnect(op.scene)
            return Done()
        }
        routes.on(SceneDestroyRequest.self) { c, op, _, _ in
            try await c.scenes.destroy(op.scene)
            return Done()
        }
        routes.on(DeleteSavedRequest.self) { c, op, _, _ in
            let set = Set(op.ids)
            let n = try await c.scenes.deleteSavedActivities(persistentIDs: set)
            await c.activities.invalidate(persistentIDs: set)
            return DeletedSaved(scenes: Int64(n))
        }
    }
}

/// Scene errors answer with a code scripts can match.
extension SceneError: ControlFailure {
    public var code: FailureCode {
        switch self {
        case .saveFailed: .saveFailed
        case .unknownScene: .notFound
        default: .badSceneState
        }
    }

    public var message: String { description }
}

/// What `scene-update` changes: the current activity, storage values, what the window shows.
struct SceneChange: Sendable {
    var activity: UserActivity?
    var clearActivity = false
    var storage: SceneStorage?
    var set: [(key: String, content: String?, value: PropertyListValue?)] = []
    var content: String??
    var navigation: [String]?

    init(_ r: SceneUpdateRequest) throws(ControlError) {
        activity = r.activity
        clearActivity = r.clearActivity
        if let v = r.storage {
            do throws(CodecError) { storage = try SceneStorage(propertyList: v) } catch {
                throw .badArgument(name: "storage", reason: error.description)
            }
        }
        for (i, entry) in r.set.enumerated() {
            if let text = entry.content, let problem = ContentIdentifier.problem(text) {
                throw .badArgument(name: "set[\(i)].content", reason: problem)
            }
            set.append((entry.key, entry.content, entry.value))
        }
        if let c = r.content { content = .some(c.isEmpty ? nil : c) }
        navigation = r.navigation
    }

    func apply(to scene: inout Scene) throws(SceneError) {
        if clearActivity { scene.currentActivity = nil }
        if let activity { scene.currentActivity = activity }
        if let storage { scene.storage = storage }
        for entry in set {
            if let content = entry.content {
                scene.storage[ContentKey(entry.key), content] = entry.value
            } else {
                scene.storage[SceneKey(entry.key)] = entry.value
            }
        }
        if content != nil || navigation != nil {
            // Content alone keeps the stack only if it still leads there: a new content without a
            // stack is shown on its own.
            let shown = content ?? scene.content
            try scene.show(shown, navigation: navigation ?? (content == nil ? scene.navigation : []))
        }
    }
}
