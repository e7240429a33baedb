import Foundation
import HandoffConfig
import HandoffCore
import HandoffTestSupport
import NIOConcurrencyHelpers
import Testing
@testable import HandoffDaemon

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

    /// A started command gets stdin, stdout and stderr and nothing else of the daemon's: a
    /// descriptor without close-on-exec (the peer port's listener) outlived handoffd in an app
    /// it had started, and the next handoffd could not take the port.
    @Test func theCommandInheritsNoOtherDescriptor() async throws {
        let out = scratchFile()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let held = open("/dev/null", O_RDONLY)
        defer { close(held) }
        try #require(held > 2)
        let result = await CommandRunner.run(
            ["/bin/sh", "-c", "if [ -e /proc/$$/fd/\(held) ]; then echo inherited; else echo closed; fi > \"$0\"", out], timeout: .seconds(10))
        #expect(result == .exited(0))
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "closed\n")
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
    func offer(_ activity: UserActivity, from origin: Origin?, preferring: UUID?) async -> LiveOffer {
        offered.withLockedValue { $0.append(activity.id) }
        return accepting.map { .taken($0, scene: nil) } ?? .none
    }
    func registered(for type: String, within deadline: Duration) async -> Bool { accepting != nil }
}

@Suite(.timeLimit(.minutes(1))) struct DispatcherTests {
    static let note = try! ActivityType("org.example.note")
    static let page = try! ActivityType("org.example.page")
    static let reading = try! ActivityType("org.example.reading")

    func dispatcher(live: FakeLive = FakeLive(accepting: nil), exec: [ExecHandlerBinding] = [], opener: [String] = ["/bin/true"]) throws -> Dispatcher
    {
        let declared = try DeclaredActivityTypes([
            ActivityTypeDeclaration(type: Self.note), ActivityTypeDeclaration(type: Self.page),
            ActivityTypeDeclaration(type: Self.reading, requiredKeys: ["url"])
        ])
        return Dispatcher(declared: DeclaredTypes(declared), execHandlers: exec, opener: opener, live: live)
    }

    var reading: UserActivity {
        var a = UserActivity(type: Self.reading, title: "An article")
        try! a.addUserInfoEntries(["url": "https://example.org/a"])
        return a
    }

    @Test func liveAppsComeFirst() async throws {
        let live = FakeLive(accepting: "notes-app")
        var a = reading
        try a.setWebpageURL(URL(string: "https://example.org/a"))
        #expect(try await dispatcher(live: live).dispatch(a) == .continuedByApp("notes-app", scene: nil))
        #expect(live.offered.withLockedValue { $0 } == [a.id])
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

    @Test func nothingToContinueWith() async throws {
        #expect(try await dispatcher().dispatch(UserActivity(type: Self.page)) == .failed(.noHandler(type: "org.example.page")))
    }

    @Test func checksComeBeforeAnyHandler() async throws {
        let live = FakeLive(accepting: "greedy")
        let d = try dispatcher(live: live)
        var undeclared = UserActivity(type: try ActivityType("org.other.thing"))
        try undeclared.setWebpageURL(URL(string: "https://example.org"))
        #expect(await d.dispatch(undeclared) == .failed(.undeclaredType(type: "org.other.thing")))
        var expired = reading
        expired.expirationDate = Date(timeIntervalSinceReferenceDate: 0)
        #expect(await d.dispatch(expired) == .failed(.expired(type: Self.reading.rawValue, at: Date(timeIntervalSinceReferenceDate: 0))))
        let missing = UserActivity(type: Self.reading)
        #expect(await d.dispatch(missing) == .failed(.missingRequiredKey(type: Self.reading.rawValue, key: "url")))
        #expect(live.offered.withLockedValue { $0.isEmpty })
    }
}
