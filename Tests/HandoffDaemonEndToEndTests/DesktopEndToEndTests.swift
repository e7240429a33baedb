import Foundation
import HandoffClient
import HandoffControl
import HandoffCore
import HandoffTestSupport
import Testing

/// handoffd on the desktop, with real parts in test hosts: a session bus
/// (dbus-daemon), a client written in Python from docs/DBUS.md, dunst under Xvfb as the
/// notification server, and gdbus/python calling the GNOME Shell and KRunner interfaces.
@Suite(
    .serialized, .timeLimit(.minutes(5)), .enabled(if: TestHostSet.unavailableReason == nil, Comment(rawValue: TestHostSet.unavailableReason ?? "")))
struct DesktopEndToEndTests {
    static let burningSwift = "E34747BE-30DC-4DD8-B191-BC6C56B9B9A3"

    static func bookActivity(_ id: UUID = UUID(), title: String = "Reading about The Burning Swift") -> String {
        """
        {"id":"\(id.uuidString)","version":1,"type":"org.hawknotes.bookDetail","userInfo":{"bookID":"\(burningSwift)"},\
        "required":[],"keywords":["airship"],"handoff":true,"search":true,"needsSave":false,"title":"\(title)",\
        "target":"b|\(burningSwift)"}
        """
    }

    static func ok(_ line: JSONLine?) -> Any? { line?["ok"] }
    static func items(_ line: JSONLine?) -> [[String: Any]] { line?["ok"] as? [[String: Any]] ?? [] }

    /// Every method of org.handoffd.Handoff1 from the Python client, on both machines; the
    /// running objects' introspection is the XML in docs/dbus/.
    @Test func everyOperationFromPython() async throws {
        let pair = try await PairedDesktops(notificationsOnB: false)
        defer { pair.stop() }
        let (da, db) = (pair.da, pair.db)
        // Introspection: what runs is what docs/dbus says.
        for (path, file) in [
            ("/org/handoffd/Handoff", "org.handoffd.Handoff1.xml"), ("/org/handoffd/Handoff/SearchProvider", "org.gnome.Shell.SearchProvider2.xml"),
            ("/org/handoffd/Handoff/Runner", "org.kde.krunner1.xml")
        ] {
            let live = try da.run([
                "gdbus", "call", "--session", "-d", "org.handoffd.Handoff", "-o", path, "-m", "org.freedesktop.DBus.Introspectable.Introspect"
            ])
            let doc = try String(contentsOf: TestHostSet.repositoryRoot.appendingPathComponent("docs/dbus/" + file), encoding: .utf8)
            // gdbus prints the string with \n escapes inside ('...',).
            #expect(live.replacingOccurrences(of: "\\n", with: "\n").contains(doc), "\(path) answers with docs/dbus/\(file)")
        }
        let status = try da.python(["call", "Status"]).first
        #expect((Self.ok(status) as? [String: Any])?["device"] as? String == "alpha")
        #expect(Self.items(try da.python(["call", "ListPeers"]).first).contains { $0["name"] as? String == "beta" && $0["present"] as? Bool == true })

        // Publish on alpha; listed there and, as alpha's offer, on beta.
        let id = UUID()
        let published = try da.python(["call", "PublishWith", Self.bookActivity(id), #"{"keep": true}"#]).first
        #expect((Self.ok(published) as? [String: Any])?["activity"] as? String == id.uuidString, "\(published?.object ?? [:])")
        #expect(Self.items(try da.python(["call", "ListActivities"]).first).contains { $0["activity"] as? String == id.uuidString })
        try await waitUntil("alpha's activity listed on beta", timeout: 10) {
            Self.items(try db.python(["call", "ListRemoteActivities", "\"\""]).first).contains { $0["activity"] as? String == id.uuidString }
        }
        #expect(Self.items(try db.python(["call", "ListRemoteActivities", "\"alpha\""]).first).count == 1)

        // Search on beta finds it (on alpha), by a prefix of its title.
        let found = Self.items(try db.python(["call", "Search", "\"readi burn\""]).first)
        let remote = found.first { $0["kind"] as? String == "remote" }
        #expect(remote?["peer"] as? String == "alpha", "\(found)")

        // A live handler on beta (Python): a push from alpha goes to it, and it answers Handled.
        let handler = try db.pythonProcess(["handler", "org.hawknotes.bookDetail", "20"])
        defer { handler.stop() }
        #expect(handler.waitForJSON(timeout: 10) { $0["ok"] != nil } != nil, "RegisterHandler answered")
        let pushed = Self.ok(try da.python(["call", "Push", "\"\(id.uuidString)\"", "\"beta\""]).first) as? [String: Any]
        #expect(pushed?["outcome"] as? String == "continued", "\(pushed ?? [:])")
        let event = handler.waitForJSON(timeout: 10) { $0.string("event") == "continue" }
        #expect(((event?["fields"] as? [String: Any])?["activity"] as? [String: Any])?["id"] as? String == id.uuidString)
        #expect((event?["handled"] as? [String: Any])?["ok"] != nil, "Handled answered")
        handler.stop()

        // A watcher on alpha hears that beta continued it; beta continues it (by id, then by search).
        let watcher = try da.pythonProcess(["watch", "20"])
        defer { watcher.stop() }
        #expect(watcher.waitForJSON(timeout: 10) { $0["ok"] != nil } != nil)
        let continued = Self.ok(try db.python(["call", "Continue", "\"alpha\"", "\"\(id.uuidString)\"", "\"\""]).first) as? [String: Any]
        #expect(
            continued?["outcome"] as? String == "continued" && continued?["step"] as? String == "app"
                && continued?["handler"] as? String == "hawknotes", "\(continued ?? [:])")
        #expect(watcher.waitForJSON(timeout: 10) { $0.string("event") == "userActivityWasContinued" } != nil)
        if let rid = remote?["id"] as? String {
            let opened = Self.ok(try db.python(["call", "OpenSearchResult", "\"\(rid)\""]).first) as? [String: Any]
            #expect(opened?["outcome"] as? String == "continued", "\(opened ?? [:])")
        }

        // Scenes on beta: listed, shown, storage saved (answered once durable).
        let scenes = Self.items(try db.python(["call", "ListScenes"]).first)
        let scene = try #require(scenes.first?["scene"] as? String)
        let shown = Self.ok(try db.python(["call", "ShowScene", "\"\(scene)\""]).first) as? [String: Any]
        // Hawk Notes' window, at The Burning Swift (its content identifier, its own form).
        #expect((shown?["content"] as? String)?.hasPrefix("b|E34747BE-30DC-4DD8-B191-BC6C56B9B9A3") == true, "\(shown ?? [:])")
        let saved = try db.python(["call", "SaveSceneStorage", "\"\(scene)\"", #"{"scene": {"draftNote": "from python"}, "content": {}}"#]).first
        #expect(Self.ok(saved) != nil, "\(saved?.object ?? [:])")
        #expect("\(Self.ok(try db.python(["call", "ShowScene", "\"\(scene)\""]).first) ?? "")".contains("from python"))

        // A window's whole life over D-Bus, as on the socket (it had none of it): made, changed,
        // launched, shown, left, destroyed; on one bus connection, which is the window's.
        let life = try db.python(["scene-life", "note", "over dbus"])
        let refused = life.filter { $0["error"] != nil }
        #expect(life.count == 5 && refused.isEmpty, "\(life.map(\.object))")
        let made = try #require((life.first?["ok"] as? [String: Any])?["scene"] as? String)
        let shownOverBus = "\(life.first { $0.string("method") == "ShowScene" }?["ok"] ?? "")"
        #expect(shownOverBus.contains("over dbus"), "\(shownOverBus)")
        #expect(Self.ok(try db.python(["call", "DestroyScene", "\"\(made)\""]).first) != nil)
        let destroyed = try db.python(["call", "ShowScene", "\"\(made)\""]).first
        #expect(destroyed?.string("error") == "org.handoffd.Handoff1.Error.NotFound", "\(destroyed?.object ?? [:])")
        // The crash-at-launch watch follows the bus connection: a window restored twice whose
        // connection ends before SceneLaunched (each `call` is a connection of its own) loses its
        // saved state, as a socket client's does.
        for _ in 0..<2 { _ = try db.python(["call", "ConnectScene", "\"\(scene)\"", "\"window\""]) }
        try await waitUntil("beta discards the scene that crashed twice at launch", timeout: 10) {
            "\(Self.ok(try db.python(["call", "ShowScene", "\"\(scene)\""]).first) ?? "")".contains("discarded")
        }
        // The installed apps and the pairings, as the socket gives them.
        #expect(Self.items(try db.python(["call", "ListApps"]).first).contains { $0["app"] as? String == "org.handoffd.HawkNotes" })
        #expect(Self.items(try db.python(["call", "ListTrusted"]).first).contains { $0["name"] as? String == "alpha" })

        // Resign and invalidate on alpha; errors are D-Bus errors with the control socket's words.
        #expect(Self.ok(try da.python(["call", "Resign", "\"\(id.uuidString)\""]).first) != nil)
        let second = UUID()
        _ = try da.python(["call", "PublishWith", Self.bookActivity(second), #"{"keep": true}"#])
        #expect(Self.ok(try da.python(["call", "Invalidate", "\"\(second.uuidString)\""]).first) != nil)
        let missing = try da.python(["call", "Continue", "\"nobody\"", "\"\(id.uuidString)\"", "\"\""]).first
        #expect(missing?.string("error")?.hasPrefix("org.handoffd.Handoff1.Error.") == true, "\(missing?.object ?? [:])")
        let badID = try da.python(["call", "Resign", "\"not-a-uuid\""]).first
        #expect(badID?.string("error") == "org.handoffd.Handoff1.Error.BadArgument")
        #expect(badID?.string("message")?.contains("canonical form") == true)

        // A continuation stream over D-Bus: beta's Python app gets its end as a `h` from
        // OpenStream; alpha's app (HandoffClient, SCM_RIGHTS) echoes it back.
        let origin = try await HandoffClient.connect(socketPath: pair.a.socket)
        defer { Task { await origin.close() } }
        // A type of the test's own: Hawk Notes, started on beta by the continuation above, is
        // registered for its own types and would take a Hawk Notes activity first.
        var streamed = UserActivity(type: try ActivityType("org.example.streamed"), title: "Streamed")
        streamed.supportsContinuationStreams = true
        _ = try await origin.perform(PublishRequest(activity: streamed))
        let echoing = Task {
            for await e in origin.events where e.name == "streamRequested" {
                let s = try await origin.acceptStream(e.fields["stream"]?.stringValue ?? "")
                _ = await Blocking.echo(s.descriptor)
                _ = await s.outcome(timeout: .seconds(10))
                s.close()
                return
            }
        }
        defer { echoing.cancel() }
        let streamer = try db.pythonProcess(["stream-handler", "org.example.streamed", "20"])
        defer { streamer.stop() }
        #expect(streamer.waitForJSON(timeout: 10) { $0["ok"] != nil } != nil, "RegisterHandler answered")
        try await waitUntil("the streamed activity listed on beta", timeout: 10) {
            Self.items(try db.python(["call", "ListRemoteActivities", "\"alpha\""]).first).contains {
                $0["activity"] as? String == streamed.id.uuidString
            }
        }
        let viaBus = Self.ok(try db.python(["call", "Continue", "\"alpha\"", "\"\(streamed.id.uuidString)\"", "\"\""]).first) as? [String: Any]
        #expect(viaBus?["step"] as? String == "app", "\(viaBus ?? [:])")
        let echoed = streamer.waitForJSON(timeout: 15) { $0["echoed"] != nil || $0["error"] != nil }
        #expect(echoed?.string("echoed") == "hello over d-bus", "\(echoed?.object ?? [:])")
        #expect((echoed?["stream"] as? [String: Any])?["peer"] as? String == "alpha")
    }

    /// A client that registers as a handler and then leaves the bus (killed, as a crash) is
    /// dropped: handoffd's handler count goes back to 0, and a push goes past it to the scene.
    @Test func aHandlerThatLeavesIsDropped() async throws {
        let pair = try await PairedDesktops(notificationsOnB: false)
        defer { pair.stop() }
        let (b, da, db) = (pair.b, pair.da, pair.db)
        #expect(try await b.request("status")?["liveHandlers"] == "0")
        let handler = try db.pythonProcess(["handler", "org.hawknotes.bookDetail", "60"])
        defer { handler.stop() }
        #expect(handler.waitForJSON(timeout: 10) { $0["ok"] != nil } != nil)
        #expect(try await b.request("status")?["liveHandlers"] == "1")
        handler.signal(SIGKILL)
        try await waitUntil("the departed handler is dropped", timeout: 10) { try await b.request("status")?["liveHandlers"] == "0" }
        // And one that ends its connection in good order (exits after registering).
        let lines = try db.python(["register-and-exit", "org.hawknotes.bookDetail"])
        #expect(lines.contains { $0["registered"] != nil } && lines.first?["ok"] != nil)
        try await waitUntil("the exited handler is dropped", timeout: 10) { try await b.request("status")?["liveHandlers"] == "0" }
        let id = UUID()
        _ = try da.python(["call", "PublishWith", Self.bookActivity(id), #"{"keep": true}"#])
        try await waitUntil("listed on beta", timeout: 10) {
            Self.items(try db.python(["call", "ListRemoteActivities", "\"alpha\""]).first).contains { $0["activity"] as? String == id.uuidString }
        }
        let report = Self.ok(try da.python(["call", "Push", "\"\(id.uuidString)\"", "\"beta\""]).first) as? [String: Any]
        #expect(report?["outcome"] as? String == "continued", "\(report ?? [:])")
    }

    /// Wrong types, huge strings, deep values and 10,000 calls in a burst: errors, never a crash.
    @Test func hostileCallsGetErrors() async throws {
        let hosts = try TestHostSet(count: 1)
        defer { hosts.tearDown() }
        let a = try DaemonHost(hosts, 1, name: "alpha")
        let da = DesktopSession(a)
        defer {
            a.stop()
            da.stop()
        }
        try await da.start()
        try await a.start(environment: da.environment)
        let r = try #require(try da.python(["hostile"]).first)
        func error(_ key: String) -> String? { (r[key] as? [String: Any])?["error"] as? String }
        #expect(error("wrongType") == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(error("stringForActivity") == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(error("missingArguments") == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(error("unknownMethod") == "org.freedesktop.DBus.Error.UnknownMethod")
        #expect(error("hugePeer") == "org.handoffd.Handoff1.Error.BadArgument")
        #expect(error("hugeTitle") == "org.handoffd.Handoff1.Error.BadArgument")
        #expect(error("deep") != nil)
        let burst = try #require(r["burst"] as? [String: Any])
        #expect(burst["answered"] as? Int == 10_000, "every call of the burst answered: \(burst)")
        let errors = burst["errors"] as? [String: Int] ?? [:]
        #expect(Set(errors.keys).isSubset(of: ["org.freedesktop.DBus.Error.LimitsExceeded"]), "\(errors)")
        #expect((burst["ok"] as? Int ?? 0) > 0)
        #expect(((r["afterwards"] as? [String: Any])?["ok"] as? [String: Any])?["device"] as? String == "alpha", "still up")
        #expect(try await a.request("status")?["device"] == "alpha")
    }

    /// GNOME Shell's and KRunner's interfaces answer what `handoffctl search` answers, and
    /// activating a result continues it.
    @Test func desktopSearchMatchesTheCLI() async throws {
        let pair = try await PairedDesktops(notificationsOnB: false)
        defer { pair.stop() }
        let (b, da, db) = (pair.b, pair.da, pair.db)
        let id = UUID()
        _ = try da.python(["call", "PublishWith", Self.bookActivity(id, title: "Lantern on the airship"), #"{"keep": true}"#])
        let cli = { () throws -> [String] in
            let out = try b.ctl(["search", "lantern", "--json"]).output
            return (try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        }
        try await waitUntil("the remote activity is found on beta", timeout: 10) { try cli().contains { $0.hasPrefix("remote:alpha/") } }
        // The CLI continues the first result (alpha's activity, ranked first by its title).
        let continued = try b.ctl(["search", "lantern", "--continue", "1"])
        #expect(continued.status == 0 && continued.output.contains("Continued"), Comment(rawValue: continued.output))
        let expected = Array(try cli().prefix(10))
        let gnome = try db.python(["gnome", "lantern"])
        let initial = (gnome.first?["initial"] as? [String: Any])?["ok"] as? [String]
        #expect(initial == expected, "GetInitialResultSet is handoffctl search's order")
        #expect((gnome.first?["subsearch"] as? [String: Any])?["ok"] as? [String] == expected)
        let metas = (gnome.first?["metas"] as? [String: Any])?["ok"] as? [[String: Any]] ?? []
        #expect(metas.map { $0["id"] as? String ?? "" } == expected)
        #expect(metas.allSatisfy { $0["name"] is String && $0["description"] is String && $0["gicon"] is String })
        // Under alpha's activity: where it is, when it last changed there (alpha's list says), what.
        let remote = metas.first { ($0["id"] as? String)?.hasPrefix("remote:alpha/") == true }
        #expect(remote?["description"] as? String == "On alpha · just now · org.hawknotes.bookDetail", "\(metas)")
        #expect(((gnome.last?["activate"] as? [String: Any]).map { $0["error"] == nil }) == true, "ActivateResult continued it")

        // gdbus, with the signatures the specifications give, for every method.
        func gdbus(_ path: String, _ method: String, _ args: String...) throws -> String {
            try db.run(["gdbus", "call", "--session", "-d", "org.handoffd.Handoff", "-o", path, "-m", method] + args)
        }
        let gnomePath = "/org/handoffd/Handoff/SearchProvider", gnomeIface = "org.gnome.Shell.SearchProvider2"
        let g = try gdbus(gnomePath, gnomeIface + ".GetInitialResultSet", "['lant']")
        #expect(expected.allSatisfy { g.contains($0) }, Comment(rawValue: g))
        let list = "[" + expected.map { "'\($0)'" }.joined(separator: ",") + "]"
        let sub = try gdbus(gnomePath, gnomeIface + ".GetSubsearchResultSet", list, "['lanter']")
        #expect(expected.allSatisfy { sub.contains($0) }, Comment(rawValue: sub))
        let metaText = try gdbus(gnomePath, gnomeIface + ".GetResultMetas", list)
        #expect(metaText.contains("'name': <'Lantern on the airship'>"), Comment(rawValue: metaText))
        #expect(try gdbus(gnomePath, gnomeIface + ".ActivateResult", expected[0], "['lantern']", "0").contains("()"))
        #expect(try gdbus(gnomePath, gnomeIface + ".LaunchSearch", "['lantern']", "0").contains("()"))
        let runnerPath = "/org/handoffd/Handoff/Runner"
        let match = try gdbus(runnerPath, "org.kde.krunner1.Match", "lantern")
        #expect(match.contains("'Lantern on the airship'"), Comment(rawValue: match))
        #expect(try gdbus(runnerPath, "org.kde.krunner1.Actions").contains("@a(sss) []"))
        #expect(try gdbus(runnerPath, "org.kde.krunner1.Run", expected[0], "").contains("()"))

        // ActivateResult made a window (the continuation's scene), which search finds too now.
        let now = Array(try cli().prefix(10))
        let k = try db.python(["krunner", "lantern"])
        let matches = (k.first?["matches"] as? [String: Any])?["ok"] as? [[Any]] ?? []
        #expect(matches.compactMap { $0.first as? String } == now)
        #expect(matches.allSatisfy { $0.count == 6 })
        #expect(((k.first?["actions"] as? [String: Any])?["ok"] as? [Any])?.isEmpty == true)
        #expect(((k.last?["run"] as? [String: Any]).map { $0["error"] == nil }) == true, "Run continued it")
    }

    /// "Lady Beatrice — continue from alpha" through dunst: flipping through the characters on
    /// alpha updates one notification; invoking it continues the activity on beta into a scene;
    /// resigning on alpha closes the notification.
    @Test func continueFromAlphaNotifications() async throws {
        // alpha's name, its own choice, holds markup: shown as text, never as bold.
        let pair = try await PairedDesktops(notificationsOnB: true, alphaName: "alpha <b>&</b> co")
        defer { pair.stop() }
        let (a, b, db) = (pair.a, pair.b, pair.db)
        let names = [
            "Captain Orrin Vale", "Mira Thale", "Tobiah Reed", "The Widow Hask", "Pell", "Lady Beatrice"
        ]
        let scene = UUID().uuidString
        var last = ""
        for name in names {
            let out = try a.hawknotes(["publish", "--character", name, "--scene", scene, "--title", name, "--json"])
            last = try #require(jsonField(out.output, "activity"), Comment(rawValue: out.output))
        }
        try await waitUntil("dunst shows Lady Beatrice from alpha", timeout: 10) { db.shown.last?.summary == "Lady Beatrice" }
        let shown = db.shown
        let capabilities = try db.run([
            "gdbus", "call", "--session", "--dest", "org.freedesktop.Notifications", "--object-path", "/org/freedesktop/Notifications",
            "--method", "org.freedesktop.Notifications.GetCapabilities"
        ])
        // dunst reads bodies as markup (it says so), and what it was given reads, as markup,
        // as the name's own text: its `<b>` is no bold, its `&` no entity (DUNST_BODY is the
        // body as it came over the bus).
        #expect(capabilities.contains("'body-markup'"), "\(capabilities)")
        #expect(shown.last?.body == "continue from alpha &lt;b&gt;&amp;&lt;/b&gt; co", "\(shown)")
        #expect(Set(shown.map(\.id)).count == 1, "one notification, updated in place: \(shown)")
        #expect(shown.count < names.count, "not one per character: \(shown)")
        #expect(try db.displayed() == 1)

        // Any process on the session bus may emit ActionInvoked: a forged one (not from the
        // notification server) continues nothing and is logged as ignored.
        let events = try await EventLog.watch(b)
        let shownID = try #require(shown.last?.id)
        _ = try db.run([
            "gdbus", "emit", "--session", "--object-path", "/org/freedesktop/Notifications", "--signal",
            "org.freedesktop.Notifications.ActionInvoked", "uint32 \(shownID)", "'default'"
        ])
        try await waitUntil("beta logs the forged action as ignored", timeout: 10) {
            b.log.contains("ignored a notification action not sent by the notification server")
        }
        #expect(try db.displayed() == 1, "the forged click closed nothing")

        // Its action continues the activity here, into a scene, and the notification goes.
        try db.run(["dunstctl", "action", "0"])
        let continued = try await events.wait("continued", timeout: 10)
        #expect(
            continued.fields["step"]?.stringValue == "app" && continued.fields["handler"]?.stringValue == "hawknotes", "\(continued.fields)")
        try await waitUntil("the notification is closed", timeout: 5) { try db.displayed() == 0 }

        // Another activity on alpha: a notification; resigned on alpha: closed.
        let book = try a.ctl([
            "publish", "--type", "org.hawknotes.bookDetail", "--info", "bookID=\(Self.burningSwift)", "--title", "Pell's wreck", "--json"
        ])
        let bookID = try #require(jsonField(book.output, "activity"), Comment(rawValue: book.output))
        try await waitUntil("the new activity is shown", timeout: 10) {
            let shown = db.shown.last?.summary == "Pell's wreck"
            return try shown && db.displayed() == 1
        }
        _ = try a.ctl(["resign", bookID])
        _ = try a.ctl(["resign", last])
        try await waitUntil("resigned on alpha: closed on beta", timeout: 10) { try db.displayed() == 0 }

        // Continued on beta another way (handoffctl, the app): its notification closes too.
        let pell = try a.hawknotes(["publish", "--character", "Pell", "--title", "Pell", "--json"])
        let pellID = try #require(jsonField(pell.output, "activity"), Comment(rawValue: pell.output))
        try await waitUntil("Pell is shown", timeout: 10) {
            let shown = db.shown.last?.summary == "Pell"
            return try shown && db.displayed() == 1
        }
        let byHand = try b.ctl(["continue", a.name, pellID])
        #expect(byHand.status == 0, "\(byHand.output)")
        try await waitUntil("continued with handoffctl: closed", timeout: 10) { try db.displayed() == 0 }
    }
}

/// alpha and beta paired in two test hosts, each handoffd on its host's session bus; `stop` ends
/// the daemons, the sessions (and dunst, Xvfb) and the hosts, also when a test fails.
struct PairedDesktops {
    let hosts: TestHostSet
    let a: DaemonHost, b: DaemonHost
    let da: DesktopSession, db: DesktopSession

    init(notificationsOnB: Bool = false, alphaName: String = "alpha") async throws {
        hosts = try TestHostSet(count: 2)
        a = try DaemonHost(hosts, 1, name: alphaName)
        b = try DaemonHost(hosts, 2, name: "beta")
        da = DesktopSession(a)
        db = DesktopSession(b)
        do {
            try await da.start()
            try await db.start(notifications: notificationsOnB)
            try await a.start(environment: da.environment)
            try await b.start(environment: db.environment)
            try await pair(a, b)
            try await waitUntil("alpha and beta present", timeout: 15) { [a, b] in
                let ab = try await isPresent(a, "beta")
                let ba = try await isPresent(b, a.name)
                return ab && ba
            }
        } catch {
            stop()
            throw error
        }
    }

    func stop() {
        a.stop()
        b.stop()
        da.stop()
        db.stop()
        hosts.tearDown()
    }
}
