import Foundation
import HandoffControl
import HandoffCore
import HandoffTestSupport
import Testing

/// The example app of docs/APPS.md (examples/reading-list), a third party's app on the public API
/// alone: D-Bus, its own declaration file, no line of handoffd knows it. Between two test hosts:
/// handoffd starts it to continue (pull), it takes a push, the text comes over a stream, its
/// window comes back after kill -9, and its activities end with it.
@Suite(
    .serialized, .timeLimit(.minutes(3)), .enabled(if: TestHostSet.unavailableReason == nil, Comment(rawValue: TestHostSet.unavailableReason ?? "")))
struct ExampleAppEndToEndTests {
    static let script = TestHostSet.repositoryRoot.appendingPathComponent("examples/reading-list/reading_list.py").path

    /// The example's declaration, its Exec= this tree's script.
    static func install(on host: DaemonHost) throws {
        let shipped = try String(
            contentsOf: TestHostSet.repositoryRoot.appendingPathComponent("examples/reading-list/org.example.ReadingList.app"), encoding: .utf8)
        try shipped.replacingOccurrences(of: "Exec=/usr/local/bin/reading-list", with: "Exec=/usr/bin/python3 \(script)")
            .write(toFile: host.dir + "/apps/org.example.ReadingList.app", atomically: true, encoding: .utf8)
    }

    @Test func aThirdPartyAppIsDeclaredStartedContinuedAndRestored() async throws {
        let pair = try await PairedDesktops(notificationsOnB: false)
        defer { pair.stop() }
        let (a, b, da) = (pair.a, pair.b, pair.da)
        for host in [a, b] { try Self.install(on: host) }
        for host in [a, b] {
            try await waitUntil("\(host.name) reads the app's file", timeout: 15) {
                try host.ctl(["apps"]).output.contains("org.example.ReadingList")
            }
        }
        // On alpha the person runs the app and opens an article.
        var app = try pair.hosts.spawn(1, "/usr/bin/python3", [Self.script], environment: da.environment)
        defer { app.stop() }
        let ready = try #require(app.waitForJSON(timeout: 10) { $0.string("event") == "ready" }, "\(app.output)")
        let window = try #require(ready.string("scene"))
        app.send("open https://example.org/owls Owls at dusk | Owls hunt at dusk, and the whole text comes over a stream.\n")
        let opened = try #require(app.waitForJSON(timeout: 10) { $0.string("event") == "opened" }, "\(app.output)")
        let first = try #require(opened.string("activity"))
        var listed = ""
        do {
            try await waitUntil("beta lists it", timeout: 10) {
                listed = try b.ctl(["activities", "--remote"]).output
                return listed.contains("Owls at dusk")
            }
        } catch {
            Issue.record("beta lists: \(listed); alpha's: \(try a.ctl(["activities"]).output)")
            throw error
        }

        // Pulled on beta, where the app is not running: handoffd starts it, it takes the
        // continuation and reads the text over a stream from alpha's app.
        let pulled = try b.ctl(["continue", "alpha", first, "--json"])
        #expect(jsonField(pulled.output, "outcome") == "continued" && jsonField(pulled.output, "handler") == "reading-list", "\(pulled.output)")
        let sceneB = try #require(jsonField(pulled.output, "scene"), "\(pulled.output)")
        let shownB = try b.ctl(["scene", "show", sceneB, "--json"]).output
        #expect(shownB.contains("https://example.org/owls") && shownB.contains("the whole text comes over a stream"), "\(shownB)")
        #expect(app.waitForJSON(timeout: 10) { $0.string("event") == "streamed" } != nil, "\(app.output)")

        // Pushed from alpha: the app running on beta takes it.
        app.send("open https://example.org/larks Larks at dawn | Larks sing before the sun.\n")
        let second = try #require(app.waitForJSON(timeout: 10) { $0.string("event") == "opened" && $0.string("url") == "https://example.org/larks" })
        let pushed = try a.ctl(["send", try #require(second.string("activity")), "--to", "beta", "--json"])
        #expect(jsonField(pushed.output, "outcome") == "continued", "\(pushed.output)")
        try await waitUntil("beta's window shows the pushed article", timeout: 10) {
            try b.ctl(["scenes", "--json"]).output.contains("https://example.org/larks")
        }

        // kill -9 on alpha: its activities end with it, and its window comes back where it was.
        app.signal(SIGKILL)
        _ = app.waitForExit(timeout: 5)
        try await waitUntil("alpha's activities ended with the app", timeout: 10) {
            !(try a.ctl(["activities"]).output.contains("Larks at dawn"))
        }
        app = try pair.hosts.spawn(1, "/usr/bin/python3", [Self.script, "--scene", window], environment: da.environment)
        let restored = try #require(app.waitForJSON(timeout: 10) { $0.string("event") == "restored" }, "\(app.output)")
        #expect(restored.string("url") == "https://example.org/larks" && restored.string("title") == "Larks at dawn")
    }
}
