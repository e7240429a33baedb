import Foundation
import HandoffContent
import HandoffCore

/// The scenes this machine keeps (UISceneSession): their lifecycle, where a continued activity
/// lands (SceneSelector), durable debounced saves, and crash-at-launch protection.
///
/// Saves: the first change of a scene is written at once; later ones within a second of its last
/// write wait for the end of that second and are written together, so a scene is written at most
/// once a second. Every caller is answered only after the write that holds its change committed
/// (acknowledged = durable), or with the error, in which case the scene keeps its previous state.
public actor SceneBook {
    public static let crashWindow: TimeInterval = 60
    public static let crashesBeforeDiscard = 2

    private let library: Library
    private let store: any SceneStore
    private let debounce: Duration
    /// What the store holds.
    private var durable: [UUID: StoredScene] = [:]
    /// The newest state asked for (equal to `durable` unless a save is pending).
    private var latest: [UUID: StoredScene] = [:]
    private var activeSceneID: UUID?

    private var pending: [UUID: StoredScene] = [:]
    private var waiters: [UUID: [CheckedContinuation<Void, Error>]] = [:]
    private var draining: Set<UUID> = []
    private var lastWrite: [UUID: ContinuousClock.Instant] = [:]
    private var windows: [UUID: CheckedContinuation<Void, Never>] = [:]
    private var flushing = false
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []

    /// Restored scenes waiting for their app to report it launched, by the connection that asked.
    private var launching: [UUID: ObjectIdentifier] = [:]
    private var crashes: [UUID: [Date]] = [:]

    /// Records the store could not read at start (reported, not fatal).
    public let unreadable: [String]
    /// How many scenes were read at start.
    public nonisolated let restoredCount: Int
    /// Why no save can succeed now (a read-only directory), for status.
    public nonisolated let storeProblem: String?

    public init(library: Library, store: any SceneStore, debounce: Duration = .seconds(1)) throws {
        self.library = library
        self.store = store
        self.debounce = debounce
        let loaded = try store.loadAll()
        for s in loaded.scenes { durable[s.scene.id] = s }
        latest = durable
        unreadable = loaded.unreadable
        storeProblem = store.readOnlyReason
        restoredCount = loaded.scenes.count
        activeSceneID = durable.values.max { $0.updated < $1.updated }?.scene.id
    }

    public var all: [StoredScene] { latest.values.sorted { ($0.created, $0.scene.id.uuidString) < ($1.created, $1.scene.id.uuidString) } }

    public func scene(_ id: UUID) -> StoredScene? { latest[id] }

    // MARK: - Lifecycle

    /// connect: the scene's saved state (made, and saved, if new). A scene restored with saved
    /// state is "launching" until `launched`; its connection dropping before that counts as a
    /// crash at launch.
    public func connect(_ id: UUID?, role: String?, by client: ObjectIdentifier, now: Date = Date()) async throws(SceneError) -> (StoredScene, restored: Bool) {
        if let id, let s = latest[id] {
            let restored = s.scene.selectedBookID != nil || !s.scene.storage.isEmpty || s.scene.currentActivity != nil
            if restored { launching[id] = client }
            activeSceneID = id
            return (s, restored)
        }
        let s = StoredScene(scene: Scene(id: id ?? UUID()), role: role ?? "window", created: now, updated: now)
        try await commit(s)
        return (s, false)
    }

    /// update: applies a change to the newest state and returns once it is durable.
    @discardableResult
    public func update(_ id: UUID, now: Date = Date(), _ change: @escaping @Sendable (inout Scene) throws(SceneError) -> Void) async throws(SceneError) -> StoredScene {
        guard var s = latest[id] else { throw .unknownScene(id) }
        try change(&s.scene)
        s.updated = now
        try await commit(s)
        return latest[id] ?? s
    }

    /// The app reports that the restored scene launched: no longer at risk.
    public func launched(_ id: UUID) { launching[id] = nil }

    /// disconnect: the system reclaimed the scene; its state stays.
    public func disconnect(_ id: UUID) {
        launching[id] = nil
    }

    /// destroy: the user closed the scene; its state goes (like SceneStorage).
    public func destroy(_ id: UUID) async throws(SceneError) {
        guard latest[id] != nil else { throw .unknownScene(id) }
        do { try await store.delete(id) } catch { throw .saveFailed("\(error)") }
        durable[id] = nil
        latest[id] = nil
        launching[id] = nil
        crashes[id] = nil
        if activeSceneID == id { activeSceneID = nil }
    }

    /// A control connection went away. Scenes it was restoring that never reported `launched`
    /// crashed at launch; the second time within a minute their saved state is discarded.
    /// Returns the scenes discarded now.
    public func connectionDropped(_ client: ObjectIdentifier, now: Date = Date()) async -> [UUID] {
        var discarded: [UUID] = []
        for (id, owner) in launching where owner == client {
            launching[id] = nil
            var times = (crashes[id] ?? []).filter { now.timeIntervalSince($0) < Self.crashWindow }
            times.append(now)
            crashes[id] = times
            guard times.count >= Self.crashesBeforeDiscard, let old = latest[id] else { continue }
            var fresh = StoredScene(scene: Scene(id: id, activationConditions: old.scene.activationConditions), role: old.role,
                                    created: old.created, updated: now)
            fresh.discarded = now
            fresh.discardReason = "the app ended abnormally twice within \(Int(Self.crashWindow)) s of restoring this scene; its saved state was discarded"
            crashes[id] = nil
            do throws(SceneError) { try await commit(fresh) } catch { continue }
            discarded.append(id)
        }
        return discarded
    }

    /// deleteSavedUserActivities: scenes stop restoring activities with these persistent ids.
    public func deleteSavedActivities(persistentIDs: Set<String>) async throws(SceneError) -> Int {
        var n = 0
        for s in all where s.scene.currentActivity?.persistentIdentifier.map(persistentIDs.contains) == true {
            try await update(s.scene.id) { $0.currentActivity = nil }
            n += 1
        }
        return n
    }

    // MARK: - Continuation

    /// Applies a route: to `preferred` if given (made if new), else to the scene the selector picks.
    /// The answer does not wait for the write: a continuation is not a save request, and repeated
    /// continuations into one scene must not wait out its write window. The write starts at once
    /// when the window allows, else at its end (within a second); SIGTERM writes it before exit.
    public func apply(_ route: Route, from activity: UserActivity, preferred: UUID?, now: Date = Date()) async throws(SceneError) -> UUID {
        let choice: SceneChoice
        if let preferred {
            choice = latest[preferred] == nil ? .newScene : .existing(preferred)
        } else {
            choice = SceneSelector.choose(targetContentIdentifier: activity.targetContentIdentifier, route: route,
                                          scenes: all.map(\.scene), activeSceneID: activeSceneID)
        }
        var s: StoredScene
        switch choice {
        case .existing(let id): s = latest[id]!
        case .newScene: s = StoredScene(scene: Scene(id: preferred ?? UUID()), created: now, updated: now)
        }
        try s.scene.apply(route, from: activity, library: library)
        s.updated = now
        schedule(s)
        return s.scene.id
    }

    // MARK: - Durable, debounced saves

    private func commit(_ s: StoredScene) async throws(SceneError) {
        let id = s.scene.id
        let previous = latest[id]
        latest[id] = s
        activeSceneID = id
        do {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, Error>) in
                pending[id] = s
                waiters[id, default: []].append(c)
                if !draining.contains(id) {
                    draining.insert(id)
                    Task { await self.drain(id) }
                }
            }
        } catch {
            // Nothing newer asked for since: the scene keeps its previous state.
            if latest[id] == s { latest[id] = durable[id] ?? previous }
            throw .saveFailed("\(error)")
        }
    }

    /// Queues a write without waiting for it.
    private func schedule(_ s: StoredScene) {
        let id = s.scene.id
        latest[id] = s
        activeSceneID = id
        pending[id] = s
        if !draining.contains(id) {
            draining.insert(id)
            Task { await self.drain(id) }
        }
    }

    private func drain(_ id: UUID) async {
        while let next = pending[id] {
            if !flushing, let last = lastWrite[id], ContinuousClock.now < last + debounce {
                await waitForWindow(id, until: last + debounce)
                continue
            }
            pending[id] = nil
            let batch = waiters.removeValue(forKey: id) ?? []
            lastWrite[id] = .now
            do {
                try await store.save(next)
                durable[id] = next
                for w in batch { w.resume() }
            } catch {
                // Nothing newer asked for: the scene keeps its last durable state.
                if latest[id] == next && pending[id] == nil { latest[id] = durable[id] }
                failedWrites += 1
                for w in batch { w.resume(throwing: error) }
            }
        }
        draining.remove(id)
        if draining.isEmpty {
            for w in idleWaiters { w.resume() }
            idleWaiters = []
        }
    }

    private func waitForWindow(_ id: UUID, until deadline: ContinuousClock.Instant) async {
        await withCheckedContinuation { c in
            windows[id] = c
            Task {
                try? await Task.sleep(until: deadline)
                self.openWindow(id)
            }
        }
    }

    private func openWindow(_ id: UUID) { windows.removeValue(forKey: id)?.resume() }

    /// Writes every pending change now (SIGTERM), and waits for them.
    public func flush() async {
        flushing = true
        for id in Array(windows.keys) { openWindow(id) }
        if !draining.isEmpty { await withCheckedContinuation { idleWaiters.append($0) } }
        await store.close()
    }

    /// Writes that failed since start (for status).
    public private(set) var failedWrites = 0
}
