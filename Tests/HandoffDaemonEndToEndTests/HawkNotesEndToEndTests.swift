import Foundation
import HandoffClient
import HandoffControl
import HandoffCore
import HandoffTestSupport
import Testing

/// The Hawk Notes app in real terminals (tmux in test hosts), with real handoffd and
/// avahi-daemon: it comes back where it was, continues what another machine offers, and keeps
/// what the person typed while handoffd is away.
@Suite(
    .serialized, .timeLimit(.minutes(5)), .enabled(if: TestHostSet.unavailableReason == nil, Comment(rawValue: TestHostSet.unavailableReason ?? "")))
struct HawkNotesEndToEndTests {
    /// The scene of the window, as handoffd holds it.
    func scene(_ host: DaemonHost) async throws -> PropertyListValue? {
        let scenes = try await host.request("scenes")?.arrayValue ?? []
        guard let newest = scenes.max(by: { ($0["updated"] ?? "") < ($1["updated"] ?? "") }), let id = newest["scene"] else { return nil }
        return try await host.request("scene", ["scene": .string(id)])
    }

    /// 1. A book, a character, a draft in another book; `kill -9`; relaunched: the same screen, and
    /// the other book's draft is its own.
    @Test func itComesBackWhereItWasAfterKill9() async throws {
        let hosts = try TestHostSet(count: 1)
        defer { hosts.tearDown() }
        let a = try DaemonHost(hosts, 1, name: "alpha")
        try await a.start()
        let app = TmuxApp(a)
        defer { app.stop() }
        try app.launch()
        try await app.waitForScreen("The Burning Swift's tab") { $0.contains("> Draft: (empty") && $0.contains("Lady Beatrice") }
        try app.keys("Right", "e")
        try app.type("the widow knows")
        try app.keys("Enter", "1", "Down", "Enter")
        try await app.waitForScreen("Lady Beatrice open") { $0.contains("in The Burning Swift") }
        // Saved (debounced): handoffd's scene shows the character and holds the other book's draft.
        try await waitUntil("the scene is saved", timeout: 5) {
            let s = try await scene(a)
            return DaemonHost.character(s) == "Lady Beatrice" && "\(s?.dictionaryValue?["storage"] ?? [:])".contains("the widow knows")
        }
        try await app.kill9()
        try app.launch()
        let back = try await app.waitForScreen("the same screen after kill -9") { $0.contains("in The Burning Swift") }
        #expect(back.contains("Lady Beatrice") && back.contains("Hawk Notes — The Burning Swift"))
        try app.keys("Escape")
        try await app.waitForScreen("its book, without a draft") { $0.contains("> Draft: (empty") || $0.contains("  Draft: (empty") }
        try app.keys("Right")
        try await app.waitForScreen("the other book's own draft") { $0.contains("Draft: the widow knows") }
        try app.keys("Right")
        let third = try await app.waitForScreen("the third book") { $0.contains("Hawk Notes — The Clockmaker's Winter") }
        #expect(!third.contains("the widow knows"), "no other book has the draft")
    }

    /// 2 and 3. On B the app shows what A offers; its continue key opens it on B, and A hears it
    /// was continued. A draft continued on B carries what A typed a moment before (needsSave).
    @Test func whatAOffersContinuesOnB() async throws {
        let hosts = try TestHostSet(count: 2)
        defer { hosts.tearDown() }
        let (a, b) = try await startPaired(hosts)
        let eventsA = try await EventLog.watch(a)
        let onA = TmuxApp(a), onB = TmuxApp(b)
        defer {
            onA.stop()
            onB.stop()
        }
        try onA.launch()
        try await onA.waitForScreen("A's first tab") { $0.contains("Lady Beatrice") }
        try onA.keys("Down", "Enter")
        try await onA.waitForScreen("Lady Beatrice on A") { $0.contains("in The Burning Swift") }
        try onB.launch()
        try await onB.waitForScreen("A's offer on B", timeout: 15) { $0.contains("is open on alpha") && $0.contains("Lady Beatrice") }
        try onB.keys("c")
        // Its end, "continued “…”": the offer's own line also says "in The Burning Swift", and a
        // screen caught while "continuing … from alpha…" still showed it (CI).
        let continued = try await onB.waitForScreen("Lady Beatrice continued on B") {
            $0.contains("continued “") && $0.contains("in The Burning Swift") && $0.contains("Hawk Notes — The Burning Swift")
        }
        #expect(!continued.contains("is open on alpha"), "what B continued is not offered to it again: \(continued)")
        try await eventsA.wait("userActivityWasContinued") { $0["peer"]?.stringValue == "beta" }
        try await onA.waitForScreen("A's window told") { $0.contains("Lady Beatrice in The Burning Swift” continued on beta") }

        // A writes a draft in another book, still typing: B gets the words typed so far.
        try onA.keys("Escape", "3", "e")
        try onA.type("gears and snow")
        try await onA.waitForScreen("A typing") { $0.contains("Draft: gears and snow") }
        try await onB.waitForScreen("A's draft offered on B", timeout: 15) { $0.contains("Note on The Clockmaker") }
        try onB.keys("c")
        try await onB.waitForScreen("the draft continued on B with A's words") {
            $0.contains("Hawk Notes — The Clockmaker's Winter") && $0.contains("Draft: gears and snow")
        }
    }

    /// 5. Not running on B: handoffd starts Hawk Notes without a window (its declaration's Exec=),
    /// which keeps the continuation in a window's saved state; the next `hawknotes` opens at it.
    @Test func aContinuationWaitsForTheApp() async throws {
        let hosts = try TestHostSet(count: 2)
        defer { hosts.tearDown() }
        let (a, b) = try await startPaired(hosts)
        let published = try a.hawknotes(["publish", "--character", "Tobiah Reed", "--json"])
        let id = try #require(jsonField(published.output, "activity"))
        try await waitUntil("beta lists it", timeout: 10) {
            try await b.request("activities", ["peer": "alpha"])?.arrayValue?.contains { $0["activity"] == id } == true
        }
        let continued = try b.ctl(["continue", "alpha", id])
        #expect(continued.status == 0, "\(continued.output)")
        let onB = TmuxApp(b)
        defer { onB.stop() }
        try onB.launch()
        try await onB.waitForScreen("Tobiah Reed, continued before the app ran") { $0.contains("Tobiah Reed") && $0.contains("in Salt and Lantern") }
        // A offers both; the window shows Tobiah Reed already, so only the other is offered to it.
        #expect(try a.hawknotes(["publish", "--character", "Lady Beatrice"]).status == 0)
        let offered = try await onB.waitForScreen("A's other activity offered on B", timeout: 15) {
            $0.contains("is open on alpha") && $0.contains("Lady Beatrice")
        }
        #expect(!offered.contains("more)") && !offered.contains("Viewing Tobiah Reed"), "\(offered)")
    }

    /// 6. handoffd stops while the app runs: the app says so and keeps the draft; when handoffd is
    /// back the app reconnects by itself and nothing typed is lost.
    @Test func handoffdAwayAndBack() async throws {
        let hosts = try TestHostSet(count: 1)
        defer { hosts.tearDown() }
        let a = try DaemonHost(hosts, 1, name: "alpha")
        try await a.start()
        let app = TmuxApp(a)
        defer { app.stop() }
        try app.launch()
        try await app.waitForScreen("the first tab") { $0.contains("saved in handoffd") }
        a.stop()
        try await app.waitForScreen("handoffd gone") { $0.contains("handoffd: not running") }
        try app.keys("e")
        try app.type("written offline")
        try app.keys("Enter")
        try await app.waitForScreen("the draft kept") { $0.contains("Draft: written offline") }
        try await a.start()
        try await app.waitForScreen("reconnected", timeout: 15) { $0.contains("saved in handoffd") }
        try await waitUntil("the draft reached handoffd", timeout: 5) {
            "\(try await scene(a)?.dictionaryValue?["storage"] ?? [:])".contains("written offline")
        }
    }

    /// A plain VT100 (no colour), 80x24, then resized: every screen fits, the keys still work.
    @Test func onAVT100AndResized() async throws {
        let hosts = try TestHostSet(count: 1)
        defer { hosts.tearDown() }
        let a = try DaemonHost(hosts, 1, name: "alpha")
        try await a.start(waitForAvahi: false)
        let app = TmuxApp(a, width: 80, height: 24)
        defer { app.stop() }
        try app.launch(term: "vt100")
        let first = try await app.waitForScreen("the first tab on a VT100") { $0.contains("Lady Beatrice") && $0.contains("q quit") }
        #expect(first.split(separator: "\n").allSatisfy { $0.count <= 80 })
        try app.resize(width: 60, height: 16)
        let small = try await app.waitForScreen("redrawn at 60x16") { s in
            s.split(separator: "\n").allSatisfy { $0.count <= 60 } && s.contains("Hawk Notes") && s.contains("…")
        }
        #expect(!small.contains("q quit"), "the key line cut to 60 columns")
        try app.keys("Down", "Enter")
        try await app.waitForScreen("a character at 60x16") { $0.contains("in The Burning Swift") }
        // Smaller than the layout: it says what it needs, inside the terminal, and comes back.
        try app.resize(width: 30, height: 6)
        try await app.waitForScreen("the size it needs, at 30x6") { s in
            s.contains("Hawk Notes needs a terminal of") && s.contains("30×6") && s.split(separator: "\n").count <= 6
        }
        try app.resize(width: 40, height: 12)
        try await app.waitForScreen("the character again at 40x12") { $0.contains("in The Burning Swift") }
        // Terminals it cannot draw on are named, with what to do (it drew nothing on TERM=dumb).
        // A window id handoffd does not have: said, not made into an empty window.
        let unknown = UUID().uuidString
        for (args, term, says) in [
            (["--scene", unknown], "xterm-256color", "no window \(unknown) is saved here"),
            ([], "dumb", "TERM=dumb cannot move the cursor"), ([], "no-such-term", "TERM=no-such-term is a terminal type")
        ] {
            try app.launch(args, term: term)
            try await waitUntil("hawknotes \(args) on TERM=\(term) says why it cannot start", timeout: 10) {
                ((try? String(contentsOfFile: a.dir + "/hawknotes.err", encoding: .utf8)) ?? "").contains(says)
            }
        }
    }

    /// With no locale at all (`env -i`: no LANG), the em dash, the arrows and ⏎ came out as
    /// `~@~T` and the key line lost its end: the app takes C.UTF-8's characters then.
    @Test func withoutALocaleItDrawsUnicode() async throws {
        let hosts = try TestHostSet(count: 1)
        defer { hosts.tearDown() }
        let a = try DaemonHost(hosts, 1, name: "alpha")
        try await a.start(waitForAvahi: false)
        let app = TmuxApp(a, width: 100, height: 30)
        defer { app.stop() }
        try app.launch(bareEnvironment: true)
        let screen = try await app.waitForScreen("the first tab without a locale") { $0.contains("Lady Beatrice") }
        #expect(screen.contains("Hawk Notes — The Burning Swift") && screen.contains("←/→ book") && screen.contains("? help  q quit"), "\(screen)")
        #expect(!screen.contains("~@~"), "\(screen)")
    }

    /// Without handoffd, or without its library, the app says what is wrong and what to do, and
    /// draws nothing.
    @Test func itSaysWhatIsMissing() throws {
        let library = TestHostSet.repositoryRoot.appendingPathComponent("config/library.json").path
        let app = BuiltProducts.path("hawknotes")
        let noDaemon = try runCommand([app, "--socket", "/tmp/handoffd-e2e-none/control.sock", "--library", library])
        #expect(noDaemon.status == 3)
        #expect(noDaemon.output.contains("handoffd is not reachable") && noDaemon.output.contains("systemctl start handoffd"), "\(noDaemon.output)")
        let noLibrary = try runCommand([app, "--library", "/tmp/handoffd-e2e-none/library.json"])
        #expect(noLibrary.status == 2)
        #expect(noLibrary.output.contains("the library cannot be read") && noLibrary.output.contains("--library"), "\(noLibrary.output)")
        let badContent = try runCommand([app, "--content", "nonsense", "--library", library])
        #expect(badContent.status == 64)
        #expect(badContent.output.contains("--content nonsense: not b|BOOK or b|BOOK::c|CHARACTER"), "\(badContent.output)")
    }

    /// 4. Two windows on one machine keep separate state across a restart.
    @Test func twoWindowsKeepTheirOwnState() async throws {
        let hosts = try TestHostSet(count: 1)
        defer { hosts.tearDown() }
        let a = try DaemonHost(hosts, 1, name: "alpha")
        try await a.start()
        let first = TmuxApp(a, name: "first"), second = TmuxApp(a, name: "second")
        defer {
            first.stop()
            second.stop()
        }
        try first.launch(["--new-window"])
        try await first.waitForScreen("window 1") { $0.contains("Lady Beatrice") }
        try first.keys("Down", "Enter")
        try await first.waitForScreen("window 1 on Lady Beatrice") { $0.contains("in The Burning Swift") }
        try second.launch(["--new-window"])
        try await second.waitForScreen("window 2") { $0.contains("Lady Beatrice") }
        try second.keys("3", "Down", "Down", "Enter")
        try await second.waitForScreen("window 2 on Master Ansel Frost") { $0.contains("in The Clockmaker's Winter") }
        try await waitUntil("both saved", timeout: 5) {
            let scenes = try await a.request("scenes")?.arrayValue ?? []
            return Set(scenes.compactMap { DaemonHost.character($0) }) == ["Lady Beatrice", "Master Ansel Frost"]
        }
        let scenes = try #require(try await a.request("scenes")?.arrayValue)
        let ids = Dictionary(uniqueKeysWithValues: scenes.compactMap { s in DaemonHost.character(s).flatMap { c in s["scene"].map { (c, $0) } } })
        try await first.kill9()
        try await second.kill9()
        a.stop()
        try await a.start()
        try first.launch(["--scene", try #require(ids["Lady Beatrice"])])
        try second.launch(["--scene", try #require(ids["Master Ansel Frost"])])
        try await first.waitForScreen("window 1 back") { $0.contains("Lady Beatrice") && $0.contains("in The Burning Swift") }
        try await second.waitForScreen("window 2 back") { $0.contains("Master Ansel Frost") && $0.contains("in The Clockmaker's Winter") }

        // Without a window named, the app asks which one (newest first) and opens the one picked.
        try first.keys("q")
        try second.keys("q")
        let third = TmuxApp(a, name: "third")
        defer { third.stop() }
        try third.launch()
        let chooser = try await third.waitForScreen("the chooser") { $0.contains("open which window?") }
        #expect(chooser.contains("The Burning Swift > Lady Beatrice") && chooser.contains("The Clockmaker's Winter > Master Ansel Frost"))
        let older = chooser.contains("2 The Burning Swift > Lady Beatrice") ? "Lady Beatrice" : "Master Ansel Frost"
        try third.keys("2")
        try await third.waitForScreen("the one picked") { $0.contains(older) && $0.contains("esc: back to") }
    }

    /// `n` opens the character in a new terminal window: in tmux, a new window running the app
    /// (started with posix_spawn through `env`, reaped when it ends) on a scene of its own.
    @Test func nOpensTheCharacterInANewTmuxWindow() async throws {
        let hosts = try TestHostSet(count: 1)
        defer { hosts.tearDown() }
        let a = try DaemonHost(hosts, 1, name: "alpha")
        try await a.start()
        let app = TmuxApp(a, name: "windows")
        defer { app.stop() }
        try app.launch(["--new-window"])
        try await app.waitForScreen("the first tab") { $0.contains("Lady Beatrice") }
        // The new window's app finds handoffd and the library as the first one did: tmux starts
        // it with the server's environment, not the app's.
        let library = TestHostSet.repositoryRoot.appendingPathComponent("config/library.json").path
        _ = try app.tmux(["set-environment", "-g", "HANDOFF_SOCKET", a.socket])
        _ = try app.tmux(["set-environment", "-g", "HAWKNOTES_LIBRARY", library])
        try app.keys("Down", "Enter")
        try await app.waitForScreen("Lady Beatrice open") { $0.contains("in The Burning Swift") }
        try app.keys("n")
        var windows: [String] = []
        try await waitUntil("a second tmux window shows Lady Beatrice", timeout: 10) {
            windows = try app.tmux(["list-windows", "-a", "-F", "#{session_name}:#{window_index}"]).split(separator: "\n").map(String.init)
            guard windows.count == 2 else { return false }
            let second = try app.tmux(["capture-pane", "-p", "-t", windows[1]])
            return second.contains("Lady Beatrice") && second.contains("in The Burning Swift")
        }
        // (The new window is the session's active one now: the first is named.)
        #expect(try app.tmux(["capture-pane", "-p", "-t", windows[0]]).contains("opened in a new window"))
        try await waitUntil("two scenes kept", timeout: 5) { try await a.request("scenes")?.arrayValue?.count == 2 }
    }
}
