import Foundation
import HandoffConfig
import HandoffContent
import HawkNotes
import HandoffCore
import HandoffTestSupport
import NIOConcurrencyHelpers
import Testing
@testable import HandoffDaemon

let libraryURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("config/library.json")

/// Processes in a process group that are not zombies (killed children of a killed shell are
/// reparented to PID 1, which may reap them late; `kill(-group, 0)` would still count them).
func livingMembers(ofGroup group: Int32) -> [Int32] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { name -> Int32? in
        guard let pid = Int32(name), let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 2, Int32(fields[2]) == group, fields[0] != "Z" else { return nil }
        return pid
    }
}

func scratchFile() -> String { FileManager.default.temporaryDirectory.appendingPathComponent("hd-\(UUID().uuidString)").path }

@Suite(.timeLimit(.minutes(1))) struct CommandRunnerTests {
    @Test func stdinReachesTheCommandAndExitStatusIsReported() async throws {
        let out = scratchFile()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let ok = await CommandRunner.run(["/bin/sh", "-c", "cat > \"$0\"", out], input: Array("hello".utf8), timeout: .seconds(10))
        #expect(ok == .exited(0))
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "hello")
        #expect(await CommandRunner.run(["/bin/sh", "-c", "exit 3"], timeout: .seconds(10)) == .exited(3))
    }

    @Test func timeoutKillsTheCommandAndItsChildren() async throws {
        // The shell starts a child of its own; the whole process group must be gone, not only the shell.
        let pidFile = scratchFile()
        defer { try? FileManager.default.removeItem(atPath: pidFile) }
        let start = ContinuousClock.now
        let result = await CommandRunner.run(["/bin/sh", "-c", "echo $$ > \"$0\"; sleep 30 & sleep 30", pidFile], timeout: .milliseconds(300))
        #expect(result == .timedOut(.milliseconds(300)))
        #expect(ContinuousClock.now - start < .seconds(5))
        let group = try #require(Int32(String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        // SIGKILL went to the whole group; the children die as soon as they are scheduled, which on
        // a loaded machine can be a moment after the leader was reaped.
        try await waitUntil("the command's process group to be gone", timeout: 5) { livingMembers(ofGroup: group).isEmpty }
    }

    @Test func missingProgram() async {
        let result = await CommandRunner.run(["/nonexistent/handler"], timeout: .seconds(1))
        guard case .couldNotStart = result else {
            Issue.record("got \(result)")
            return
        }
    }
}

/// Live handlers for tests: the named apps accept; records what it was offered.
final class FakeLive: LiveHandlers, @unchecked Sendable {
    let accepting: String?
    let offered = NIOLockedValueBox<[UUID]>([])
    init(accepting: String?) { self.accepting = accepting }
    func offer(_ activity: UserActivity, from origin: Origin?) async -> LiveOffer {
        offered.withLockedValue { $0.append(activity.id) }
        return accepting.map { .taken($0) } ?? .none
    }
    func registered(for type: String, within deadline: Duration) async -> Bool { accepting != nil }
}

@Suite(.timeLimit(.minutes(1))) struct DispatcherTests {
    let library = try! Library(contentsOf: libraryURL)
    static let note = try! ActivityType("org.example.note")
    static let page = try! ActivityType("org.example.page")

    func dispatcher(
        live: FakeLive = FakeLive(accepting: nil), exec: [ExecHandlerBinding] = [], opener: [String] = ["/bin/true"],
        scenes: NIOLockedValueBox<[Route]> = NIOLockedValueBox([])
    ) throws -> Dispatcher {
        let declared = try DeclaredActivityTypes(
            HawkNotes.declarations + [ActivityTypeDeclaration(type: Self.note), ActivityTypeDeclaration(type: Self.page)])
        let router = ActivityRouter(declared: declared, handlers: try HandlerRegistry(HawkNotes.handlers(library: library)))
        let sceneID = UUID()
        return Dispatcher(declared: DeclaredTypes(declared), router: router, execHandlers: exec, opener: opener, live: live) { route, _, _ in
            scenes.withLockedValue { $0.append(route) }
            return sceneID
        }
    }

    var beatrice: UserActivity {
        HawkNotes.characterDetailActivity(library.character(id: UUID(uuidString: "08D82D60-6977-42AA-9C22-AB1A07AE8A19")!)!, in: library.books[0])
    }

    @Test func liveAppsComeFirst() async throws {
        let live = FakeLive(accepting: "notes-app")
        let scenes = NIOLockedValueBox<[Route]>([])
        let outcome = try await dispatcher(live: live, scenes: scenes).dispatch(beatrice)
        #expect(outcome == .continuedByApp("notes-app"))
        #expect(scenes.withLockedValue { $0.isEmpty })
    }

    @Test func builtInHandlersRouteToAScene() async throws {
        let scenes = NIOLockedValueBox<[Route]>([])
        let outcome = try await dispatcher(scenes: scenes).dispatch(beatrice)
        guard case .routedToScene(_, let route) = outcome else {
            Issue.record("got \(outcome)")
            return
        }
        #expect(route.tabID == library.books[0].id && route.navigationPath == [.item(UUID(uuidString: "08D82D60-6977-42AA-9C22-AB1A07AE8A19")!)])
        #expect(scenes.withLockedValue { $0 } == [route])
    }

    @Test func execHandlerGetsTheActivityAsJSON() async throws {
        let out = scratchFile()
        defer { try? FileManager.default.removeItem(atPath: out) }
        var a = UserActivity(type: Self.note, title: "Shopping list")
        try a.addUserInfoEntries(["item": "bread"])
        let d = try dispatcher(exec: [ExecHandlerBinding(types: [Self.note], command: ["/bin/sh", "-c", "cat > \"$0\"", out], timeoutSeconds: 5)])
        #expect(await d.dispatch(a) == .continuedByCommand(["/bin/sh", "-c", "cat > \"$0\"", out]))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [String: Any]
        #expect(json?["title"] as? String == "Shopping list")
        #expect((json?["userInfo"] as? [String: Any])?["item"] as? String == "bread")
    }

    @Test func failingExecHandlerIsAHandlerFailure() async throws {
        let d = try dispatcher(exec: [ExecHandlerBinding(types: [Self.note], command: ["/bin/sh", "-c", "exit 4"], timeoutSeconds: 5)])
        let outcome = await d.dispatch(UserActivity(type: Self.note))
        guard case .failed(let f) = outcome else {
            Issue.record("got \(outcome)")
            return
        }
        #expect(f.code == "handler-failed" && f.description.contains("exited with status 4"))
    }

    @Test func webpageFallbackThroughTheOpener() async throws {
        let out = scratchFile()
        defer { try? FileManager.default.removeItem(atPath: out) }
        var a = UserActivity(type: Self.page)
        try a.setWebpageURL(URL(string: "https://books.example.org/x"))
        let d = try dispatcher(opener: ["/bin/sh", "-c", "printf %s \"$1\" > \"$0\"", out])
        #expect(await d.dispatch(a) == .openedWebpage(URL(string: "https://books.example.org/x")!))
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "https://books.example.org/x")
    }

    /// Issue 23: a continuation routed into a scene opens a window there (the scene opener, with
    /// the scene id), only where a desktop session exists; the outcome is the scene either way.
    @Test func aRoutedSceneIsOpenedWhereThereIsADesktop() async throws {
        let out = scratchFile()
        defer { try? FileManager.default.removeItem(atPath: out) }
        var d = try dispatcher()
        d.sceneOpener = ["/bin/sh", "-c", "printf %s \"$1\" > \"$0\"", out]
        guard case .routedToScene(let scene, _) = await d.dispatch(beatrice) else {
            Issue.record("not routed to a scene")
            return
        }
        #expect(!FileManager.default.fileExists(atPath: out), "no desktop: nothing opened")
        d.desktop = true
        guard case .routedToScene(let again, _) = await d.dispatch(beatrice) else {
            Issue.record("not routed to a scene")
            return
        }
        #expect(again == scene)
        // The opener runs in the background: its file appears a moment after.
        try await waitUntil("the scene opener ran", timeout: 5) { (try? String(contentsOfFile: out, encoding: .utf8)) == scene.uuidString }
        // An app running for the type takes it: nothing is opened.
        try? FileManager.default.removeItem(atPath: out)
        d = try dispatcher(live: FakeLive(accepting: "hawknotes"))
        (d.sceneOpener, d.desktop) = (["/bin/sh", "-c", "printf x > \"$0\"", out], true)
        #expect(await d.dispatch(beatrice) == .continuedByApp("hawknotes"))
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func nothingToContinueWith() async throws {
        #expect(try await dispatcher().dispatch(UserActivity(type: Self.page)) == .failed(.noHandler(type: "org.example.page")))
    }

    @Test func checksComeBeforeAnyHandler() async throws {
        let live = FakeLive(accepting: "greedy")
        let d = try dispatcher(live: live)
        var undeclared = UserActivity(type: try ActivityType("org.other.thing"))
        try undeclared.setWebpageURL(URL(string: "https://example.org"))
        #expect(await d.dispatch(undeclared) == .failed(.undeclaredType(type: "org.other.thing")))
        var expired = beatrice
        expired.expirationDate = Date(timeIntervalSinceReferenceDate: 0)
        #expect(await d.dispatch(expired) == .failed(.expired(type: HawkNotes.characterDetail.rawValue, at: Date(timeIntervalSinceReferenceDate: 0))))
        let missing = UserActivity(type: HawkNotes.bookDetail)
        #expect(await d.dispatch(missing) == .failed(.missingRequiredKey(type: HawkNotes.bookDetail.rawValue, key: "bookID")))
        #expect(live.offered.withLockedValue { $0.isEmpty })
    }
}
