#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffAsync
import HandoffContent
import HandoffCore
import ServiceLifecycle

/// The scenes this machine keeps for its apps (UISceneSession): their lifecycle, durable saves
/// committed in groups, and crash-at-launch protection. What a scene shows is its app's.
///
/// Saves: the first change of a scene is written at once; later ones within a second of its last
/// write wait for the end of that second and are written together, so a scene is written at most
/// once a second. Every caller is answered only after the write that holds its change committed
/// (acknowledged = durable), or with the error, in which case the scene keeps its previous state.
/// Writes run in `run()`, one child task per scene with changes; at shutdown it writes every
/// pending change before it returns.
public actor SceneBook: Service {
    public static let crashWindow: TimeInterval = 60
    public static let crashesBeforeDiscard = 2

    private let store: any SceneStore
    /// What the store holds.
    private var durable: [UUID: StoredScene] = [:]
    /// The newest state asked for (equal to `durable` unless a save is pending).
    private var latest: [UUID: StoredScene] = [:] { didSet { revision &+= 1 } }
    /// Counts the changes to `latest`: what has changed since a reader last looked, without
    /// reading them all (Search asks at every query).
    public private(set) var revision = 0

    private var saves: SaveQueue
    /// Callers waiting for a write (by scene and batch), for a write window, or for every write to end.
    private let waits = Waiters<SceneWait, Result<Void, SceneError>>()
    /// Scenes with changes to write, handed to `run()`.
    private let drains: (stream: AsyncStream<UUID>, continuation: AsyncStream<UUID>.Continuation)

    /// Restored scenes waiting for their app to report it launched, by the connection that asked.
    private var launches = LaunchWatch()

    /// Records the store could not read at start (reported, not fatal).
    public nonisolated var unreadable: [String] { report.unreadable }
    /// How many scenes were read at start.
    public nonisolated var restoredCount: Int { report.restored }
    /// Why no save can succeed now (a read-only directory), for status.
    public nonisolated var storeProblem: String? { report.storeProblem }
    private nonisolated let report: (restored: Int, unreadable: [String], storeProblem: String?)

    /// `debounce`: the least time between two writes of one scene. None by default: changes
    /// made while a scene is being written are written together right after it (a group commit),
    /// so a save is answered as soon as it is durable, never held for a write window (it was a
    /// second: a window that saved twice in a row waited that long for the second).
    public init(store: any SceneStore, debounce: Duration = .zero) throws {
        self.store = store
        saves = SaveQueue(debounce: debounce)
        let loaded = try store.loadAll()
        for s in loaded.scenes { durable[s.scene.id] = s }
        latest = durable
        report = (loaded.scenes.count, loaded.unreadable, store.readOnlyReason)
        drains = AsyncStream.makeStream(of: UUID.self)
    }

    /// Oldest first. Each id's text made once, not at each comparison: with 10,000 scenes the sort
    /// made 280,000 of them, 40 ms, and `status` asked for it.
    public var all: [StoredScene] {
        latest.values.map { ($0, $0.scene.id.canonicalString) }.sorted { ($0.0.created, $0.1) < ($1.0.created, $1.1) }.map(\.0)
    }

    /// How many scenes there are.
    public var count: Int { latest.count }

    public func scene(_ id: UUID) -> StoredScene? { latest[id] }

    /// What live handlers' windows show and when each was last changed (which one a continuation
    /// is offered to first).
    public func liveFacts(_ ids: [UUID]) -> [UUID: LiveSceneFacts] {
        var facts: [UUID: LiveSceneFacts] = [:]
        for id in ids { if let s = latest[id] { facts[id] = LiveSceneFacts(content: s.scene.content, updated: s.updated) } }
        return facts
    }

    // MARK: - Lifecycle

    /// connect: the scene's saved state (made, and saved, if new). A scene restored with saved
    /// state is "launching" until `launched`; its connection dropping before that counts as a
    /// crash at launch.
    public func connect(_ id: UUID?, role: String?, by client: ObjectIdentifier, now: Date = Date()) async throws(SceneError) -> (
        StoredScene, restored: Bool
    ) {
        if let id, let s = latest[id] {
            let restored = s.scene.content != nil || !s.scene.storage.isEmpty || s.scene.currentActivity != nil
            if restored { launches.launching[id] = client }
            return (s, restored)
        }
        let s = StoredScene(scene: Scene(id: id ?? UUID()), role: role ?? "window", created: now, updated: now)
        try await commit(s)
        return (s, false)
    }

    /// update: applies a change to the newest state and returns once it is durable.
    @discardableResult
    public func update(_ id: UUID, now: Date = Date(), _ change: @escaping @Sendable (inout Scene) throws(SceneError) -> Void)
        async throws(SceneError) -> StoredScene
    {
        guard var s = latest[id] else { throw .unknownScene(id) }
        try change(&s.scene)
        s.updated = now
        try await commit(s)
        return latest[id] ?? s
    }

    /// The app reports that the restored scene launched: no longer at risk.
    public func launched(_ id: UUID) { launches.launching[id] = nil }

    /// disconnect: the system reclaimed the scene; its state stays.
    public func disconnect(_ id: UUID) {
        launches.launching[id] = nil
    }

    /// destroy: the user closed the scene; its state goes (like SceneStorage).
    public func destroy(_ id: UUID) async throws(SceneError) {
        guard latest[id] != nil else { throw .unknownScene(id) }
        do { try await store.delete(id) } catch { throw .saveFailed("\(error)") }
        durable[id] = nil
        latest[id] = nil
        launches.launching[id] = nil
        launches.crashes[id] = nil
    }

    /// A control connection went away. Scenes it was restoring that never reported `launched`
    /// crashed at launch; the second time within a minute their saved state is discarded.
    /// Returns the scenes discarded now.
    public func connectionDropped(_ client: ObjectIdentifier, now: Date = Date()) async -> [UUID] {
        var discarded: [UUID] = []
        for (id, owner) in launches.launching where owner == client {
            launches.launching[id] = nil
            var times = (launches.crashes[id] ?? []).filter { now.timeIntervalSince($0) < Self.crashWindow }
            times.append(now)
            launches.crashes[id] = times
            guard times.count >= Self.crashesBeforeDiscard, let old = latest[id] else { continue }
            var fresh = StoredScene(
                scene: Scene(id: id, activationConditions: old.scene.activationConditions), role: old.role,
                created: old.created, updated: now)
            fresh.discarded = now
            fresh.discardReason =
                "the app ended abnormally twice within \(Int(Self.crashWindow)) s of restoring this scene; its saved state was discarded"
            launches.crashes[id] = nil
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

    // MARK: - Durable saves, committed in groups

    /// The least time between two writes of one scene (`debounce`).
    var saveWindow: Duration { saves.debounce }

    public func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask {
                try? await gracefulShutdown()
                await self.flush()
            }
            for await id in drains.stream { group.addTask { await self.drain(id) } }
        }
    }

    private func commit(_ s: StoredScene) async throws(SceneError) {
        let id = s.scene.id
        let previous = latest[id]
        latest[id] = s
        let ticket = waits.register(.written(id, batch: saves.batch(of: id)))
        enqueue(s)
        switch await waits.wait(ticket) {
        case .value(.success): return
        case .value(.failure(let error)):
            // Nothing newer asked for since: the scene keeps its previous state.
            if latest[id] == s { latest[id] = durable[id] ?? previous }
            throw error
        default:
            throw .saveFailed("handoffd is stopping")
        }
    }

    /// Queues a write without waiting for it.
    private func schedule(_ s: StoredScene) {
        latest[s.scene.id] = s
        enqueue(s)
    }

    private func enqueue(_ s: StoredScene) {
        if saves.add(s) { drains.continuation.yield(s.scene.id) }
    }

    private func drain(_ id: UUID) async {
        while let next = saves.pending(id) {
            if !saves.flushing, let last = saves.lastWrite[id], ContinuousClock.now < last + saves.debounce {
                // The write window: until it ends, or a flush opens it early.
                _ = await waits.wait(for: .window(id), deadline: last + saves.debounce - ContinuousClock.now)
                continue
            }
            let batch = saves.take(id)
            do {
                try await store.save(next)
                durable[id] = next
                waits.resumeAll(.written(id, batch: batch), with: .success(()))
            } catch {
                // Nothing newer asked for: the scene keeps its last durable state.
                if latest[id] == next && saves.pending(id) == nil { latest[id] = durable[id] }
                saves.failedWrites += 1
                waits.resumeAll(.written(id, batch: batch), with: .failure(.saveFailed("\(error)")))
            }
        }
        if saves.finished(id) { waits.resumeAll(.idle, with: .success(())) }
    }

    /// Writes every pending change now (SIGTERM), waits for them, and closes the store.
    public func flush() async {
        saves.flushing = true
        let ticket = waits.register(.idle)
        for id in saves.draining { waits.resumeAll(.window(id), with: .success(())) }
        if saves.draining.isEmpty { waits.forget(ticket) } else { _ = await waits.wait(ticket) }
        await store.close()
        drains.continuation.finish()
    }

    /// Writes that failed since start (for status).
    public var failedWrites: Int { saves.failedWrites }
}
