#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffContent
import HawkNotes
import HandoffControl
import HandoffCore

extension DaemonControl {
    /// The scene lifecycle operations (docs/CONTROL.md, "Scenes").
    func sceneRoute(_ r: ControlRequest, _ client: ControlClient) async throws(ControlError) -> PropertyListValue? {
        let scenes = self.scenes, library = self.library
        switch r.op {
        case ScenesRequest.name: return try await answer(r) { (_: ScenesRequest) in Listing(await scenes.all.map { $0.summary(library: library) }) }
        case SceneRequest.name:
            return try await answer(r) { (op: SceneRequest) in
                guard let s = await scenes.scene(op.scene) else {
                    throw ControlError.failed(code: "not-found", message: "no scene \(op.scene.canonicalString) (see `handoffctl scenes`)")
                }
                return s.detail(library: library)
            }
        case SceneConnectRequest.name:
            return try await answer(r) { (op: SceneConnectRequest) in
                let (s, restored) = try await scenes.connect(op.scene, role: op.role, by: client.key)
                var d = s.detail(library: library)
                d.restored = restored
                d.restorationActivity = s.scene.restorationActivity()
                return d
            }
        case SceneUpdateRequest.name:
            return try await answer(r) { (op: SceneUpdateRequest) in
                let change = try SceneChange(op, library: library)
                let s = try await scenes.update(op.scene) { @Sendable (scene: inout Scene) throws(SceneError) in
                    try change.apply(to: &scene, library: library)
                }
                // The summary, not the storage: an acknowledgement should not carry the whole scene back.
                return s.summary(library: library)
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
    public var code: String {
        switch self {
        case .saveFailed: "save-failed"
        case .unknownScene: "not-found"
        default: "bad-scene-state"
        }
    }

    public var message: String { description }
}

/// What `scene-update` changes: the current activity, storage values, the tab and navigation.
struct SceneChange: Sendable {
    var activity: UserActivity?
    var clearActivity = false
    var storage: SceneStorage?
    var set: [(key: String, content: ContentPath?, value: PropertyListValue?)] = []
    var book: UUID??
    var path: [UUID]?

    init(_ r: SceneUpdateRequest, library: Library) throws(ControlError) {
        activity = r.activity
        clearActivity = r.clearActivity
        if let v = r.storage {
            do throws(CodecError) { storage = try SceneStorage(propertyList: v) } catch {
                throw .badArgument(name: "storage", reason: error.description)
            }
        }
        for (i, entry) in r.set.enumerated() {
            var content: ContentPath?
            if let text = entry.content {
                do throws(ContentPathError) { content = try ContentPath(parsing: text) } catch {
                    throw .badArgument(name: "set[\(i)].content", reason: error.description)
                }
            }
            set.append((entry.key, content, entry.value))
        }
        if let b = r.book {
            if b == "none" {
                book = .some(nil)
            } else {
                guard let id = UUID(canonical: b) ?? library.books.first(where: { $0.title == b })?.id else {
                    throw .badArgument(name: "book", reason: "no book '\(b)' in the library")
                }
                book = .some(id)
            }
        }
        if let p = r.path {
            path = try p.map { (text: String) throws(ControlError) -> UUID in
                guard let id = UUID(canonical: text) ?? library.books.flatMap(\.characters).first(where: { $0.name == text })?.id else {
                    throw .badArgument(name: "path", reason: "entries must be character ids or names of the library")
                }
                return id
            }
        }
    }

    func apply(to scene: inout Scene, library: Library) throws(SceneError) {
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
        if book != nil || path != nil {
            let tab = book ?? scene.selectedTabID
            try scene.navigate(
                toTab: tab,
                path: (path
                    ?? (book != nil
                        ? []
                        : scene.navigationPath.compactMap {
                            if case .item(let c) = $0 { return c } else { return nil }
                        }))
                    .map(NavigationItem.item), catalog: library)
        }
    }
}
