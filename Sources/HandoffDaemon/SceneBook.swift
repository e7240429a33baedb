import Foundation
import HandoffContent
import HandoffCore

/// Where scenes are kept between changes. `SceneBook` calls `save` after each change it makes and
/// reports a failed save to its caller, so nothing is acknowledged that was not kept.
public protocol SceneStore: Sendable {
    func loadAll() throws -> [StoredScene]
    func save(_ scene: StoredScene) throws
    func delete(_ id: UUID) throws
}

/// One scene as stored: the scene itself (its restoration activity carries tab, path, storage and
/// current activity), plus its role and times.
public struct StoredScene: Sendable, Equatable {
    public var scene: Scene
    public var role: String
    public var created: Date
    public var updated: Date

    public init(scene: Scene, role: String = "window", created: Date, updated: Date) {
        self.scene = scene
        self.role = role
        self.created = created
        self.updated = updated
    }
}

/// Keeps scenes in memory only (tests, and `--ephemeral` runs).
public final class MemorySceneStore: SceneStore, @unchecked Sendable {
    private let lock = NSLock()
    private var scenes: [UUID: StoredScene] = [:]
    public init() {}
    public func loadAll() -> [StoredScene] { lock.withLock { Array(scenes.values) } }
    public func save(_ scene: StoredScene) { lock.withLock { scenes[scene.scene.id] = scene } }
    public func delete(_ id: UUID) { _ = lock.withLock { scenes.removeValue(forKey: id) } }
}

/// The scenes this machine shows, and where a continued activity lands (SceneSelector), with the
/// route applied and the scene saved.
public actor SceneBook {
    private let library: Library
    private let store: any SceneStore
    private var scenes: [UUID: StoredScene] = [:]
    /// The scene the person used last (the "active" scene in the selector's order).
    private var activeSceneID: UUID?

    public init(library: Library, store: any SceneStore) throws {
        self.library = library
        self.store = store
        for s in try store.loadAll() { scenes[s.scene.id] = s }
        activeSceneID = scenes.values.max { $0.updated < $1.updated }?.scene.id
    }

    public var all: [StoredScene] { scenes.values.sorted { ($0.created, $0.scene.id.uuidString) < ($1.created, $1.scene.id.uuidString) } }

    public func scene(_ id: UUID) -> StoredScene? { scenes[id] }

    /// Applies a route: to `preferred` if given (made if new), else to the scene the selector picks.
    public func apply(_ route: Route, from activity: UserActivity, preferred: UUID?, now: Date = Date()) throws(SceneError) -> UUID {
        let choice: SceneChoice
        if let preferred {
            choice = scenes[preferred] == nil ? .newScene : .existing(preferred)
        } else {
            choice = SceneSelector.choose(targetContentIdentifier: activity.targetContentIdentifier, route: route,
                                          scenes: all.map(\.scene), activeSceneID: activeSceneID)
        }
        var stored: StoredScene
        switch choice {
        case .existing(let id): stored = scenes[id]!
        case .newScene: stored = StoredScene(scene: Scene(id: preferred ?? UUID()), created: now, updated: now)
        }
        try stored.scene.apply(route, from: activity, library: library)
        stored.updated = now
        try commit(stored)
        return stored.scene.id
    }

    private func commit(_ stored: StoredScene) throws(SceneError) {
        do { try store.save(stored) } catch { throw .saveFailed("\(error)") }
        scenes[stored.scene.id] = stored
        activeSceneID = stored.scene.id
    }
}
