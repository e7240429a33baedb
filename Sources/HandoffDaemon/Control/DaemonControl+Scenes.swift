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
    func sceneRoute(_ r: ControlRequest, _ client: ControlClient) async throws(ControlError) -> PropertyListValue? {
        let scenes = self.scenes
        switch r.op {
        case ScenesRequest.name: return try await answer(r) { (_: ScenesRequest) in Listing(await scenes.all.map { $0.summary }) }
        case SceneRequest.name:
            return try await answer(r) { (op: SceneRequest) in
                guard let s = await scenes.scene(op.scene) else {
                    throw ControlError.failed(code: .notFound, message: "no scene \(op.scene.canonicalString) (see `handoffctl scenes`)")
                }
                return s.detail
            }
        case SceneConnectRequest.name:
            return try await answer(r) { (op: SceneConnectRequest) in
                let (s, restored) = try await scenes.connect(op.scene, role: op.role, by: client.key)
                var d = s.detail
                d.restored = restored
                d.restorationActivity = s.scene.restorationActivity()
                return d
            }
        case SceneUpdateRequest.name:
            return try await answer(r) { (op: SceneUpdateRequest) in
                let change = try SceneChange(op)
                let s = try await scenes.update(op.scene) { @Sendable (scene: inout Scene) throws(SceneError) in
                    try change.apply(to: &scene)
                }
                // The summary, not the storage: an acknowledgement should not carry the whole scene back.
                return s.summary
            }
        case SceneLaunchedRequest.name:
            return try await answer(r) { (op: SceneLaunchedRequest) in
                await scenes.launched(op.scene)
                return Done()
            }
        case SceneDisconnectRequest.name:
            return try await answer(r) { (op: SceneDisconnectRequest) in
                await scenes.disconnect(op.scene)
                return Done()
            }
        case SceneDestroyRequest.name:
            return try await answer(r) { (op: SceneDestroyRequest) in
                try await scenes.destroy(op.scene)
                return Done()
            }
        case DeleteSavedRequest.name:
            return try await answer(r) { (op: DeleteSavedRequest) in
                let set = Set(op.ids)
                let n = try await scenes.deleteSavedActivities(persistentIDs: set)
                await activities.invalidate(persistentIDs: set)
                return DeletedSaved(scenes: Int64(n))
            }
        default:
            throw .unknownOp(r.op)
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
