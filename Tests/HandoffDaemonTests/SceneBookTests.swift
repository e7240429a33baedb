import Foundation
import HandoffContent
import HandoffCore
import HandoffState
import Testing
@testable import HandoffDaemon

/// Two pieces of an app's content (its own identifiers; the scenes never read into them).
private let swift = "doc:swift", salt = "doc:salt"
private let app = ObjectIdentifier(NSObject())

/// A change that shows `content` (after `navigation`).
private func nav(_ content: String, _ navigation: [String] = []) -> @Sendable (inout Scene) throws(SceneError) -> Void {
    { (s: inout Scene) throws(SceneError) in try s.show(content, navigation: navigation) }
}

@Suite struct SceneBookTests {
    @Test func savesAreDurableBeforeTheyAreAcknowledgedAndRapidOnesCoalesce() async throws {
        let store = MemorySceneStore()
        let book = try SceneBook(store: store, debounce: .milliseconds(300))
        let running = Task { try await book.run() }
        defer { running.cancel() }
        let (s, restored) = try await book.connect(nil, role: nil, by: app)
        #expect(!restored)
        let id = s.scene.id
        #expect(store.stored(id) != nil)
        // Ten saves at once: each caller is answered after a write that holds its change.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 1...10 {
                group.addTask {
                    try await book.update(id) { $0.storage[SceneKey("n\(n)")] = .integer(Int64(n)) }
                    // Acknowledged: the store already has it.
                    #expect(store.stored(id)?.scene.storage[SceneKey("n\(n)")] == .integer(Int64(n)))
                }
            }
            try await group.waitForAll()
        }
        // One write for the new scene, one at once, the rest together after the window.
        #expect(store.writeCount <= 3)
        #expect((1...10).allSatisfy { store.stored(id)?.scene.storage[SceneKey("n\($0)")] != nil })
    }

    /// A window that saves twice in a row is answered each time as soon as the write is durable:
    /// the second waited out a write window of a second.
    @Test func aSaveRightAfterAnotherIsNotHeldForAWindow() async throws {
        let store = MemorySceneStore()
        let book = try SceneBook(store: store)
        let running = Task { try await book.run() }
        defer { running.cancel() }
        let id = try await book.connect(nil, role: nil, by: app).0.scene.id
        // No write window by default: nothing to wait out between two writes of one scene.
        #expect(await book.saveWindow == .zero)
        try await book.update(id, nav(swift))
        try await book.update(id, nav(salt))
        // Answered once durable: each save its own write, done when the call returned.
        #expect(store.writeCount == 3)
        #expect(store.stored(id)?.scene.content == salt)
    }

    @Test func aFailedSaveKeepsThePreviousStateAndTheBookWorksOn() async throws {
        let store = MemorySceneStore()
        let book = try SceneBook(store: store, debounce: .milliseconds(10))
        let running = Task { try await book.run() }
        defer { running.cancel() }
        let id = try await book.connect(nil, role: nil, by: app).0.scene.id
        try await book.update(id, nav(swift))
        store.failNextSaves(1)
        await #expect(throws: SceneError.self) {
            try await book.update(id, nav(salt))
        }
        #expect(await book.scene(id)?.scene.content == swift)
        #expect(store.stored(id)?.scene.content == swift)
        try await book.update(id, nav(salt))
        #expect(store.stored(id)?.scene.content == salt)
    }

    @Test func twoCrashesAtLaunchWithinAMinuteDiscardTheSavedState() async throws {
        let store = MemorySceneStore()
        let book = try SceneBook(store: store, debounce: .milliseconds(10))
        let running = Task { try await book.run() }
        defer { running.cancel() }
        let id = try await book.connect(nil, role: nil, by: app).0.scene.id
        try await book.update(id, nav(swift + "#c1", [swift, swift + "#c1"]))
        let t0 = Date()
        // First crash: the state stays.
        let first = ObjectIdentifier(NSObject())
        #expect(try await book.connect(id, role: nil, by: first).restored)
        #expect(await book.connectionDropped(first, now: t0) == [])
        #expect(await book.scene(id)?.scene.content == swift + "#c1")
        // Second within 60 s: discarded, and it says so.
        let second = ObjectIdentifier(NSObject())
        _ = try await book.connect(id, role: nil, by: second)
        #expect(await book.connectionDropped(second, now: t0.addingTimeInterval(30)) == [id])
        let after = try #require(await book.scene(id))
        #expect(after.scene.content == nil)
        #expect(after.discarded != nil && after.discardReason?.contains("twice") == true)
        #expect(store.stored(id)?.discarded != nil)
    }

    @Test func cleanDisconnectsLaunchesAndSlowCrashesDoNotDiscard() async throws {
        let book = try SceneBook(store: MemorySceneStore(), debounce: .milliseconds(10))
        let running = Task { try await book.run() }
        defer { running.cancel() }
        let id = try await book.connect(nil, role: nil, by: app).0.scene.id
        try await book.update(id, nav(swift))
        let t0 = Date()
        for (i, end) in ["disconnect", "launched", "disconnect"].enumerated() {
            let c = ObjectIdentifier(NSObject())
            _ = try await book.connect(id, role: nil, by: c)
            if end == "disconnect" { await book.disconnect(id) } else { await book.launched(id) }
            #expect(await book.connectionDropped(c, now: t0.addingTimeInterval(Double(i))) == [])
        }
        // Two crashes more than 60 s apart.
        for offset in [0.0, 61.0] {
            let c = ObjectIdentifier(NSObject())
            _ = try await book.connect(id, role: nil, by: c)
            #expect(await book.connectionDropped(c, now: t0.addingTimeInterval(offset)) == [])
        }
        #expect(await book.scene(id)?.scene.content == swift)
    }

    @Test func destroyDeletesAndDeleteSavedClearsTheActivity() async throws {
        let store = MemorySceneStore()
        let book = try SceneBook(store: store, debounce: .milliseconds(10))
        let running = Task { try await book.run() }
        defer { running.cancel() }
        let a = try await book.connect(nil, role: nil, by: app).0.scene.id, b = try await book.connect(nil, role: nil, by: app).0.scene.id
        var activity = UserActivity(type: try ActivityType("org.example.reading"), title: "Reading")
        activity.persistentIdentifier = "reading-swift"
        let saved = activity
        try await book.update(a) { $0.currentActivity = saved }
        #expect(try await book.deleteSavedActivities(persistentIDs: ["reading-swift"]) == 1)
        #expect(await book.scene(a)?.scene.currentActivity == nil)
        try await book.destroy(b)
        #expect(await book.scene(b) == nil)
        #expect(store.stored(b) == nil)
    }
}

@Suite struct SceneDatabaseTests {
    func tempDir() throws -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("scenes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }

    @Test func threeScenesOfDifferentContentComeBackExactly() async throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        var scenes: [StoredScene] = []
        for (i, doc) in ["doc:a", "doc:b", "doc:c"].enumerated() {
            var s = Scene()
            try s.show(doc + "#\(i)", navigation: [doc, doc + "#\(i)"])
            s.storage[ContentKey("draft"), doc] = .string("draft for \(doc)")
            s.storage[SceneKey("scroll")] = .real(0.25 * Double(i + 1))
            s.currentActivity = UserActivity(type: try ActivityType("org.example.reading"), title: "Reading \(doc)")
            scenes.append(
                StoredScene(scene: s, created: Date(timeIntervalSince1970: 1_800_000_000), updated: Date(timeIntervalSince1970: 1_800_000_100)))
        }
        let store = SQLiteSceneStore(database: try SceneDatabase(directory: dir))
        for s in scenes { try await store.save(s) }
        await store.close()
        let mode = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent("scenes.sqlite").path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let back = try SQLiteSceneStore(database: try SceneDatabase(directory: dir)).loadAll()
        #expect(back.unreadable.isEmpty)
        #expect(Set(back.scenes.map(\.scene.id)) == Set(scenes.map(\.scene.id)))
        for s in scenes { #expect(back.scenes.first { $0.scene.id == s.scene.id } == s) }
        // Each content keeps its own draft (the seed's shared-key bug stays gone).
        let drafts = back.scenes.map { $0.scene.storage[ContentKey("draft"), $0.scene.navigation[0]]?.stringValue }
        #expect(Set(drafts.compactMap { $0 }).count == 3)
    }

    @Test func aDamagedFileIsMovedAsideAndTheStoreStartsEmpty() async throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("scenes.sqlite").path
        try Data(String(repeating: "not a database ", count: 400).utf8).write(to: URL(fileURLWithPath: path))
        let db = try SceneDatabase(directory: dir)
        let aside = try #require(db.movedAside)
        #expect(aside.contains(".damaged-"))
        #expect(FileManager.default.fileExists(atPath: aside))
        let store = SQLiteSceneStore(database: db)
        #expect(try store.loadAll().scenes.isEmpty)
        try await store.save(StoredScene(scene: Scene(), created: Date(), updated: Date()))
        #expect(try store.loadAll().scenes.count == 1)
    }
}
