#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffContent

/// What SceneBook waits for.
enum SceneWait: Hashable, Sendable {
    /// The write of this batch of a scene's changes.
    case written(UUID, batch: Int)
    /// The end of a scene's write window.
    case window(UUID)
    /// No write left to do (flush).
    case idle
}

/// The scenes' pending writes: the newest state of each scene not yet written, which batch the
/// callers waiting for it are in, the scenes being written, and when each was last written. Pure
/// state, kept by SceneBook.
struct SaveQueue {
    /// A scene is written at most once per this long.
    let debounce: Duration
    init(debounce: Duration) { self.debounce = debounce }

    private var pendingScenes: [UUID: StoredScene] = [:]
    private var batches: [UUID: Int] = [:]
    private(set) var draining: Set<UUID> = []
    private(set) var lastWrite: [UUID: ContinuousClock.Instant] = [:]
    /// At shutdown: no more waiting out write windows.
    var flushing = false
    /// Writes that failed since start (for status).
    var failedWrites = 0

    /// The batch a change made now is written in.
    func batch(of id: UUID) -> Int { batches[id, default: 0] }

    func pending(_ id: UUID) -> StoredScene? { pendingScenes[id] }

    /// Returns true when the scene needs a writer (none is writing it now).
    mutating func add(_ s: StoredScene) -> Bool {
        pendingScenes[s.scene.id] = s
        return draining.insert(s.scene.id).inserted
    }

    /// Takes the pending state for writing now; returns the batch it answers.
    mutating func take(_ id: UUID) -> Int {
        pendingScenes[id] = nil
        lastWrite[id] = .now
        let b = batches[id, default: 0]
        batches[id] = b + 1
        return b
    }

    /// The writer of `id` is done; true when no scene is being written any more.
    mutating func finished(_ id: UUID) -> Bool {
        draining.remove(id)
        return draining.isEmpty
    }
}

/// Scenes restored and not yet reported launched (by the connection that asked), and each one's
/// recent crashes at launch.
struct LaunchWatch {
    var launching: [UUID: ObjectIdentifier] = [:]
    var crashes: [UUID: [Date]] = [:]
}
