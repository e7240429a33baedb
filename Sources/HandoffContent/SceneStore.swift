#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Synchronization
import HandoffCore

/// One scene as stored: the scene itself (its restoration activity carries tab, path, storage and
/// current activity), plus its role, times, and whether its saved state was thrown away.
public struct StoredScene: Sendable, Equatable {
    public var scene: Scene
    public var role: String
    // Times are kept at what the database gives back exactly (`Date.storable`), so that a scene
    // reads the same before and after a restart: its JSON form carries every bit of a date.
    public var created: Date { didSet { created = created.storable } }
    public var updated: Date { didSet { updated = updated.storable } }
    /// When crash-at-launch protection (or a damaged record) discarded the saved state, and why.
    public var discarded: Date? { didSet { discarded = discarded?.storable } }
    public var discardReason: String?

    public init(scene: Scene, role: String = "window", created: Date, updated: Date, discarded: Date? = nil, discardReason: String? = nil) {
        self.scene = scene
        self.role = role
        self.created = created.storable
        self.updated = updated.storable
        self.discarded = discarded?.storable
        self.discardReason = discardReason
    }

    /// Limits for a scene's encoding on disk: a scene's storage may be larger than an activity.
    public static let codecLimits = CodecLimits(maxDepth: 24, maxValues: 65_536, maxBytes: 4 * 1024 * 1024)
}

extension Date {
    /// Whole 1/1024 s since 1970: exact through the scene database's REAL column (seconds since
    /// 1970) and back to a Date (seconds since 2001), which an arbitrary double is not.
    public var storable: Date { Date(timeIntervalSince1970: (timeIntervalSince1970 * 1024).rounded(.down) / 1024) }
}

/// Where scenes are kept. A save returns only once the scene is durable (or throws, and the
/// previous state stays).
public protocol SceneStore: Sendable {
    /// Every stored scene; records that cannot be read are reported rather than thrown.
    func loadAll() throws -> (scenes: [StoredScene], unreadable: [String])
    func save(_ scene: StoredScene) async throws
    func delete(_ id: UUID) async throws
    /// Waits for writes in flight (SIGTERM).
    func close() async
    /// Why saves cannot succeed at all (a read-only directory), or nil.
    var readOnlyReason: String? { get }
}

extension SceneStore {
    public var readOnlyReason: String? { nil }
}

/// Keeps scenes in memory (unit tests of the logic above the store). `failNextSaves` makes the
/// next saves throw, as a full disk would.
public final class MemorySceneStore: SceneStore, Sendable {
    private struct State {
        var scenes: [UUID: StoredScene] = [:]
        var failing = 0
        var writes = 0
    }
    private let state = Mutex(State())

    public struct Failure: Error, CustomStringConvertible {
        public var description: String { "no space left on device (simulated)" }
    }

    public init() {}
    public func failNextSaves(_ n: Int) { state.withLock { $0.failing = n } }
    public var writeCount: Int { state.withLock { $0.writes } }
    public func stored(_ id: UUID) -> StoredScene? { state.withLock { $0.scenes[id] } }
    public func loadAll() -> (scenes: [StoredScene], unreadable: [String]) { state.withLock { (Array($0.scenes.values), []) } }
    public func save(_ scene: StoredScene) async throws {
        try state.withLock { s throws(Failure) in
            if s.failing > 0 {
                s.failing -= 1
                throw Failure()
            }
            s.writes += 1
            s.scenes[scene.scene.id] = scene
        }
    }
    public func delete(_ id: UUID) async throws { _ = state.withLock { $0.scenes.removeValue(forKey: id) } }
    public func close() async {}
}
