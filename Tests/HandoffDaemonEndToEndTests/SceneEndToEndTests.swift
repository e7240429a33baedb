import Foundation
import HandoffClient
import HandoffContent
import HawkNotes
import HandoffControl
import HandoffCore
import HandoffTestSupport
import Testing

/// Scene state across restarts, crashes, full and read-only disks, with a real handoffd.
@Suite(
    .serialized, .timeLimit(.minutes(10)), .enabled(if: TestHostSet.unavailableReason == nil, Comment(rawValue: TestHostSet.unavailableReason ?? "")))
struct SceneEndToEndTests {
    static let library = try! Library(contentsOf: TestHostSet.repositoryRoot.appendingPathComponent("config/library.json"))

    /// Makes a scene on `book` showing its character `i`, with a draft for that book and a scene value.
    func makeScene(_ c: HandoffClient, book: Book, character i: Int, draft: String) async throws -> String {
        let id = try #require(try await c.request("scene-connect")?["scene"])
        _ = try await c.request(
            "scene-update",
            [
                "scene": .string(id), "content": .string(ContentPath(tabID: book.id, itemID: book.characters[i].id).description),
                "navigation": [.string(ContentPath(tabID: book.id, itemID: book.characters[i].id).description)],
                "set": [
                    ["key": "draftText", "content": .string(ContentPath(tabID: book.id).description), "value": .string(draft)],
                    ["key": "scroll", "value": .real(0.5)]
                ],
                "activity": HawkNotes.characterDetailActivity(book.characters[i], in: book).propertyList
            ])
        return id
    }

    @Test func threeScenesComeBackExactlyAfterSIGTERMAndAfterSIGKILL() async throws {
        let hosts = try TestHostSet(count: 1)
        defer { hosts.tearDown() }
        let a = try DaemonHost(hosts, 1, name: "alpha")
        try await a.start(waitForAvahi: false)
        let c = try await HandoffClient.connect(socketPath: a.socket)
        var ids: [String] = []
        for (i, book) in Self.library.books.enumerated() {
            ids.append(try await makeScene(c, book: book, character: i, draft: "notes on \(book.title)"))
        }
        await c.close()
        func snapshot() async throws -> [PropertyListValue?] {
            var out: [PropertyListValue?] = []
            for id in ids { out.append(try await a.request("scene", ["scene": .string(id)])) }
            return out
        }
        let before = try await snapshot()
        #expect(before.allSatisfy { DaemonHost.character($0) != nil })

        a.process?.signal(SIGTERM)
        #expect(a.process?.waitForExit(timeout: 2) == 0)
        try await a.start(waitForAvahi: false)
        #expect(try await snapshot() == before)

        // Changes acknowledged just before a SIGKILL survive it.
        for (i, id) in ids.enumerated() {
            _ = try await a.request("scene-update", ["scene": .string(id), "set": [["key": "scroll", "value": .real(Double(i) + 0.75)]]])
        }
        let acknowledged = try await snapshot()
        a.kill9()
        try await a.start(waitForAvahi: false)
        #expect(try await snapshot() == acknowledged)
        // Two book tabs keep separate drafts: each scene has only its own book's draft.
        for (i, s) in acknowledged.enumerated() {
            let storage = JSONValue.text(s?.dictionaryValue?["storage"] ?? "")
            #expect(storage.contains("notes on \(Self.library.books[i].title)"))
            for (j, other) in Self.library.books.enumerated() where j != i { #expect(!storage.contains("notes on \(other.title)")) }
        }
    }

    @Test func twoHundredKillNinesWhileSaving() async throws {
        let hosts = try TestHostSet(count: 1)
        defer { hosts.tearDown() }
        let a = try DaemonHost(hosts, 1, name: "alpha")
        try await a.start(waitForAvahi: false)
        let setup = try await HandoffClient.connect(socketPath: a.socket)
        var ids: [String] = []
        for _ in 0..<6 { ids.append(try #require(try await setup.request("scene-connect")?["scene"])) }
        await setup.close()
        let progress = Progress()
        var checked = 0
        for round in 0..<200 {
            if round > 0 { try await a.start(waitForAvahi: false) }
            // Every acknowledged save is there; nothing newer than the last one asked for.
            for id in ids {
                let stored = try await a.request("scene", ["scene": .string(id)])?.dictionaryValue?["storage"]
                let value = stored?.dictionaryValue?["scene"]?.dictionaryValue?["counter"]?.integerValue ?? 0
                let (acked, requested) = progress.bounds(id)
                #expect(
                    acked <= value && value <= requested,
                    "round \(round), scene \(id): stored \(value), acknowledged \(acked), requested \(requested)")
                progress.restart(id, at: value)
                checked += 1
            }
            let client = try await HandoffClient.connect(socketPath: a.socket)
            let savers = ids.map { id in
                Task {
                    while !Task.isCancelled {
                        let n = progress.nextRequest(id)
                        do {
                            _ = try await client.request("scene-update", ["scene": .string(id), "set": [["key": "counter", "value": .integer(n)]]])
                        } catch { return }
                        progress.acknowledged(id, n)
                    }
                }
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 5...120)))
            a.kill9()
            for s in savers { s.cancel() }
            for s in savers { await s.value }
        }
        try await a.start(waitForAvahi: false)
        #expect(checked == 1200)
        #expect(progress.totalAcknowledged > 200, "too few acknowledged saves to mean anything: \(progress.totalAcknowledged)")
        let damaged = try FileManager.default.contentsOfDirectory(atPath: a.sceneDirectory).filter { $0.contains("damaged") }
        #expect(damaged.isEmpty, "corrupt stores: \(damaged)")
        #expect(!a.log.contains("damaged"))
    }

    @Test func aFullDiskFailsTheSaveAndKeepsThePreviousState() async throws {
        let hosts = try TestHostSet(count: 1)
        defer { hosts.tearDown() }
        let a = try DaemonHost(hosts, 1, name: "alpha")
        try FileManager.default.createDirectory(atPath: a.sceneDirectory, withIntermediateDirectories: true)
        try hosts.run(1, ["mount", "-t", "tmpfs", "-o", "size=640k,mode=0700", "tmpfs", a.sceneDirectory])
        try await a.start(waitForAvahi: false)
        let id = try #require(try await a.request("scene-connect")?["scene"])
        _ = try await a.request(
            "scene-update", ["scene": .string(id), "book": .string("The Burning Swift"), "set": [["key": "note", "value": "kept"]]])
        let kept = try await a.request("scene", ["scene": .string(id)])
        var failure: String?
        for i in 0..<40 {
            do {
                _ = try await a.request(
                    "scene-update",
                    [
                        "scene": .string(id),
                        "set": [["key": .string("big\(i)"), "value": .data(Data((0..<100_000).map { _ in UInt8.random(in: 0...255) }))]]
                    ])
            } catch let e as ClientError {
                failure = e.description
                if case .refused(let code, _) = e { #expect(code == "save-failed") }
                break
            }
        }
        let message = try #require(failure, "the tmpfs never filled up")
        #expect(message.contains("full") || message.contains("space"), "\(message)")
        // The daemon is up, and the scene is what the last acknowledged save left.
        #expect(try await a.request("status")?["device"] == "alpha")
        let now = try await a.request("scene", ["scene": .string(id)])
        #expect(now?.dictionaryValue?["content"] == kept?.dictionaryValue?["content"])
        let storage = JSONValue.text(now?.dictionaryValue?["storage"] ?? "")
        #expect(storage.contains("kept"))
        #expect(a.process?.isRunning == true)
    }

    @Test func readOnlySceneDirectoryServesSavedStateAndFailsSaves() async throws {
        let hosts = try TestHostSet(count: 1)
        defer { hosts.tearDown() }
        let a = try DaemonHost(hosts, 1, name: "alpha")
        try await a.start(waitForAvahi: false)
        let c = try await HandoffClient.connect(socketPath: a.socket)
        let id = try await makeScene(c, book: Self.library.books[1], character: 2, draft: "salt")
        await c.close()
        let saved = try await a.request("scene", ["scene": .string(id)])
        a.stop()
        try hosts.run(1, ["mount", "--bind", a.sceneDirectory, a.sceneDirectory])
        try hosts.run(1, ["mount", "-o", "remount,bind,ro", a.sceneDirectory])
        try await a.start(waitForAvahi: false)
        let store: String? = try await a.request("status")?["sceneStore"]
        #expect(store?.hasPrefix("read-only") == true, "\(store ?? "-")")
        #expect(try await a.request("scene", ["scene": .string(id)]) == saved)
        do {
            _ = try await a.request("scene-update", ["scene": .string(id), "content": "b|E34747BE-30DC-4DD8-B191-BC6C56B9B9A3"])
            Issue.record("a save into a read-only directory was acknowledged")
        } catch let e as ClientError {
            #expect(e.description.contains("not writable"), "\(e)")
        }
        #expect(try await a.request("scene", ["scene": .string(id)]) == saved)
        let update = try a.ctl(["scene", "update", id, "--show", "b|E34747BE-30DC-4DD8-B191-BC6C56B9B9A3"])
        #expect(update.status == 1)
    }

    @Test func aDamagedStoreIsMovedAsideAndTheDaemonStartsEmpty() async throws {
        let hosts = try TestHostSet(count: 1)
        defer { hosts.tearDown() }
        let a = try DaemonHost(hosts, 1, name: "alpha")
        try await a.start(waitForAvahi: false)
        let c = try await HandoffClient.connect(socketPath: a.socket)
        _ = try await makeScene(c, book: Self.library.books[0], character: 0, draft: "x")
        await c.close()
        a.stop()
        let db = a.sceneDirectory + "/scenes.sqlite"
        try Data(String(repeating: "garbage! ", count: 2000).utf8).write(to: URL(fileURLWithPath: db))
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: db + suffix) }
        try await a.start(waitForAvahi: false)
        #expect(try await a.request("scenes")?.arrayValue?.isEmpty == true)
        let files = try FileManager.default.contentsOfDirectory(atPath: a.sceneDirectory)
        #expect(files.contains { $0.hasPrefix("scenes.sqlite.damaged-") }, "\(files)")
        #expect(a.log.contains("critical") && a.log.contains("damaged"))
        // And it saves again.
        #expect(try await a.request("scene-connect")?["scene"] != nil)
    }

    @Test func crashAtLaunchProtectionTriggersOnlyOnAbnormalDrops() async throws {
        let hosts = try TestHostSet(count: 1)
        defer { hosts.tearDown() }
        let a = try DaemonHost(hosts, 1, name: "alpha")
        try await a.start(waitForAvahi: false)
        let events = try await EventLog.watch(a)
        let setup = try await HandoffClient.connect(socketPath: a.socket)
        let clean = try await makeScene(setup, book: Self.library.books[0], character: 0, draft: "clean")
        let crashing = try await makeScene(setup, book: Self.library.books[1], character: 0, draft: "crash")
        await setup.close()

        // Clean: restored, then disconnected properly, twice.
        for _ in 0..<2 {
            let app = try await HandoffClient.connect(socketPath: a.socket)
            #expect(try await app.request("scene-connect", ["scene": .string(clean)])?.dictionaryValue?["restored"] == true)
            _ = try await app.request("scene-disconnect", ["scene": .string(clean)])
            await app.close()
        }
        // Crashing: restored, then the connection drops before `scene-launched`, twice (the app
        // is a handoffctl process killed with SIGKILL).
        for _ in 0..<2 {
            let app = try a.ctlProcess(["scene", "connect", crashing, "--hold"])
            #expect(app.waitForLine(timeout: 5) { $0.hasPrefix("scene") } != nil)
            app.signal(SIGKILL)
            _ = app.waitForExit(timeout: 5)
        }
        try await events.wait("sceneStateDiscarded") { $0["scene"]?.stringValue == crashing }
        let discarded = try await a.request("scene", ["scene": .string(crashing)])
        #expect(discarded?.dictionaryValue?["discarded"] != nil)
        #expect(discarded?.dictionaryValue?["content"] == nil)
        #expect(try a.ctl(["scene", "show", crashing]).output.contains("discarded"))
        let kept = try await a.request("scene", ["scene": .string(clean)])
        #expect(kept?.dictionaryValue?["discarded"] == nil)
        #expect(DaemonHost.book(kept) == Self.library.books[0].title)
    }

    @Test func aContinuedSceneIsRestoredAfterARestart() async throws {
        let hosts = try TestHostSet(count: 2)
        defer { hosts.tearDown() }
        let (a, b) = try await startPaired(hosts)
        let published = try a.hawknotes(["publish", "--character", "Captain Orrin Vale", "--json"])
        let id = try #require(jsonField(published.output, "activity"))
        let continued = try b.ctl(["continue", "alpha", id, "--json"])
        let scene = try #require(jsonField(continued.output, "scene"))
        // A restart (systemctl restart: SIGTERM), right after the handoff.
        b.stop()
        try await b.start()
        let restored = try await b.request("scene", ["scene": .string(scene)])
        #expect(DaemonHost.character(restored) == "Captain Orrin Vale")
        #expect(DaemonHost.book(restored) == "The Burning Swift")
    }
}

/// What the savers asked for and what was acknowledged, per scene.
final class Progress: @unchecked Sendable {
    private let lock = NSLock()
    private var acked: [String: Int64] = [:]
    private var requested: [String: Int64] = [:]
    private(set) var totalAcknowledged = 0

    func nextRequest(_ id: String) -> Int64 {
        lock.withLock {
            requested[id, default: 0] += 1
            return requested[id]!
        }
    }
    func acknowledged(_ id: String, _ n: Int64) {
        lock.withLock {
            acked[id] = max(acked[id] ?? 0, n)
            totalAcknowledged += 1
        }
    }
    func bounds(_ id: String) -> (Int64, Int64) { lock.withLock { (acked[id] ?? 0, requested[id] ?? 0) } }
    /// After a restart the stored value is the new base: requests continue above it.
    func restart(_ id: String, at value: Int64) {
        lock.withLock {
            acked[id] = value
            requested[id] = value
        }
    }
}
