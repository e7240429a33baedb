import Foundation
import HandoffContent
import HandoffControl
import HandoffCore

extension DaemonControl {
    /// The scene lifecycle operations (docs/CONTROL.md, "Scenes").
    func sceneOperation(_ r: ControlRequest, _ client: ControlClient) async throws(ControlError) -> PropertyListValue? {
        switch r.op {
        case "scene-connect":
            let id = try r.optionalString("scene").map { (_: String) throws(ControlError) -> UUID in try r.uuid("scene") }
            let role = try r.optionalString("role")
            let (s, restored) = try await sceneCall { () throws(SceneError) in try await daemon.scenes.connect(id, role: role, by: client.key) }
            guard case .dictionary(var d) = s.detail(library: daemon.library) else { return nil }
            d["restored"] = .bool(restored)
            d["restorationActivity"] = s.scene.restorationActivity().propertyList
            return .dictionary(d)
        case "scene-update":
            let id = try r.uuid("scene")
            let change = try SceneChange(r, library: daemon.library)
                let s = try await sceneCall { () throws(SceneError) in try await daemon.scenes.update(id) { @Sendable (scene: inout Scene) throws(SceneError) in try change.apply(to: &scene, library: library) } }
            // The summary, not the storage: an acknowledgement should not carry the whole scene back.
            return s.summary(library: daemon.library)
        case "scene-launched":
            await daemon.scenes.launched(try r.uuid("scene"))
            return nil
        case "scene-disconnect":
            await daemon.scenes.disconnect(try r.uuid("scene"))
            return nil
        case "scene-destroy":
            let id = try r.uuid("scene")
            try await sceneCall { () throws(SceneError) in try await daemon.scenes.destroy(id) }
            return nil
        case "delete-saved":
            guard let ids = r.arguments["ids"]?.arrayValue?.compactMap(\.stringValue), !ids.isEmpty else {
                throw .badArgument(name: "ids", reason: "must be a non-empty array of persistent identifiers")
            }
            let set = Set(ids)
            let n = try await sceneCall { () throws(SceneError) in try await daemon.scenes.deleteSavedActivities(persistentIDs: set) }
            await daemon.activities.invalidate(persistentIDs: set)
            return .dictionary(["scenes": .integer(Int64(n))])
        default:
            throw .unknownOp(r.op)
        }
    }

    private func sceneCall<T>(_ body: () async throws(SceneError) -> T) async throws(ControlError) -> T {
        do throws(SceneError) { return try await body() } catch {
            switch error {
            case .saveFailed: throw .failed(code: "save-failed", message: error.description)
            case .unknownScene: throw .failed(code: "not-found", message: error.description)
            default: throw .failed(code: "bad-scene-state", message: error.description)
            }
        }
    }

}

/// What `scene-update` changes: the current activity, storage values, the tab and navigation.
struct SceneChange: Sendable {
    var activity: UserActivity?
    var clearActivity = false
    var storage: SceneStorage?
    var set: [(key: String, content: ContentPath?, value: PropertyListValue?)] = []
    var book: UUID??
    var path: [UUID]?

    init(_ r: ControlRequest, library: Library) throws(ControlError) {
        if let v = r.arguments["activity"] {
            if v.stringValue == "none" { clearActivity = true } else { activity = try r.activity() }
        }
        if let v = r.arguments["storage"] {
            do throws(CodecError) { storage = try SceneStorage(propertyList: v) } catch {
                throw .badArgument(name: "storage", reason: error.description)
            }
        }
        for (i, entry) in (r.arguments["set"]?.arrayValue ?? []).enumerated() {
            guard let d = entry.dictionaryValue, let key = d["key"]?.stringValue else {
                throw .badArgument(name: "set[\(i)]", reason: "must be {key, value, content?}")
            }
            var content: ContentPath?
            if let text = d["content"]?.stringValue {
                do throws(ContentPathError) { content = try ContentPath(parsing: text) } catch {
                    throw .badArgument(name: "set[\(i)].content", reason: error.description)
                }
            }
            set.append((key, content, d["value"]))
        }
        if let b = r.arguments["book"]?.stringValue {
            if b == "none" { book = .some(nil) } else {
                guard let id = UUID(canonical: b) ?? library.books.first(where: { $0.title == b })?.id else {
                    throw .badArgument(name: "book", reason: "no book '\(b)' in the library")
                }
                book = .some(id)
            }
        }
        if let p = r.arguments["path"]?.arrayValue {
            path = try p.map { (v: PropertyListValue) throws(ControlError) -> UUID in
                guard let text = v.stringValue, let id = UUID(canonical: text) ?? library.books.flatMap(\.characters).first(where: { $0.name == text })?.id else {
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
            let tab = book ?? scene.selectedBookID
            try scene.navigate(toBook: tab, path: (path ?? (book != nil ? [] : scene.navigationPath.compactMap {
                if case .character(let c) = $0 { return c } else { return nil }
            })).map(NavigationItem.character), library: library)
        }
    }
}
