import Foundation
import HandoffClient
import HandoffContent
import HawkNotes
import HandoffControl
import HandoffCore
import HandoffTestSupport
import Testing

/// Real handoffd processes with real avahi-daemons in test hosts, paired, driven by handoffctl and
/// by HandoffClient as an app would.
@Suite(
    .serialized, .timeLimit(.minutes(3)), .enabled(if: TestHostSet.unavailableReason == nil, Comment(rawValue: TestHostSet.unavailableReason ?? "")))
struct ContinuationEndToEndTests {
    @Test func publishListContinuePushAndNeedsSave() async throws {
        let hosts = try TestHostSet(count: 2)
        defer { hosts.tearDown() }
        let (a, b) = try await startPaired(hosts)
        let eventsA = try await EventLog.watch(a), eventsB = try await EventLog.watch(b)

        // Publish on A; B lists it within a second.
        let published = try a.hawknotes(["publish", "--character", "Lady Beatrice", "--json"])
        try #require(published.status == 0, "\(published.output)")
        let id = try #require(jsonField(published.output, "activity"))
        let listed = try await waitUntil("beta lists the activity", timeout: 1) {
            try await b.request("activities", ["peer": "alpha"])?.arrayValue?.contains { $0["activity"] == id } == true
        }
        #expect(listed < 1)

        // Continue on B: handoffd there starts Hawk Notes (the app that declares the type), which
        // puts it in a window of its own at the book and the character; A hears it was continued.
        let continued = try b.ctl(["continue", "alpha", id])
        #expect(continued.status == 0)
        #expect(
            continued.output.contains("Continued by hawknotes in scene ") && continued.output.contains("Viewing Lady Beatrice in The Burning Swift"),
            "\(continued.output)")
        let scenes = try #require(try await b.request("scenes")?.arrayValue)
        let scene = try #require(scenes.first { $0["title"] == "Viewing Lady Beatrice in The Burning Swift" })
        #expect(scene["content"]?.hasSuffix("::c|08D82D60-6977-42AA-9C22-AB1A07AE8A19") == true && scene["role"] == "hawknotes")
        let shown = try b.ctl(["scene", "show", scene["scene"]!])
        #expect(shown.output.contains("Lady Beatrice") && shown.output.contains("The Burning Swift"))
        try await eventsA.wait("userActivityWasContinued") { $0["activity"]?.stringValue == id && $0["peer"]?.stringValue == "beta" }

        // Push from A: B dispatches it at once and says so.
        let other = try a.hawknotes(["publish", "--character", "Tobiah Reed", "--json"])
        let otherID = try #require(jsonField(other.output, "activity"))
        let pushed = try a.ctl(["send", otherID, "--to", "beta", "--json"])
        #expect(pushed.status == 0, "\(pushed.output)")
        #expect(jsonField(pushed.output, "outcome") == "continued")
        try await eventsB.wait("continued") {
            $0["activity"]?.stringValue == otherID && $0["handler"]?.stringValue == "hawknotes" && $0["peer"]?.stringValue == "alpha"
        }

        // needsSave: the app that published the draft is asked for fresh state before B gets it.
        let book = try Library(contentsOf: TestHostSet.repositoryRoot.appendingPathComponent("config/library.json")).books[2]
        let app = try await HandoffClient.connect(socketPath: a.socket)
        defer { Task { await app.close() } }
        let draft = HawkNotes.draftNoteActivity(book, text: "first words")
        try await app.becomeCurrent(draft)
        // The app keeps saving its window on the same connection, as an editor saves while the
        // person types: each save is answered once written, at most once a second, yet the
        // answer to needsSave is taken at once and makes the 500 ms budget.
        let window = try #require(try await app.request("scene-connect")?["scene"])
        let saver = Task {
            var n: Int64 = 0
            while !Task.isCancelled {
                n += 1
                _ = try await app.request("scene-update", ["scene": .string(window), "set": [["key": .string("typed"), "value": .integer(n)]]])
            }
        }
        defer { saver.cancel() }
        let refresher = Task {
            try await app.onNeedsSave { id in
                guard id == draft.id else { return nil }
                var fresh = draft
                try? fresh.addUserInfoEntries([HawkNotes.Key.draftText: "first words, and more since"])
                return fresh
            }
        }
        defer { refresher.cancel() }
        let fetched = try b.ctl(["continue", "alpha", draft.id.uuidString, "--json"])
        #expect(fetched.status == 0, "\(fetched.output)")
        let sceneID = try #require(jsonField(fetched.output, "scene"))
        let detail = try b.ctl(["scene", "show", sceneID, "--json"])
        #expect(detail.output.contains("first words, and more since"), "\(detail.output)")

        // Invalidation reaches B at once.
        #expect(try a.ctl(["invalidate", id]).status == 0)
        try await eventsB.wait("remoteActivityInvalidated") { $0["activity"]?.stringValue == id }
        #expect(try await b.request("activities", ["peer": "alpha"])?.arrayValue?.contains { $0["activity"] == id } == false)
    }

    @Test func dispatchStepsAndFailuresOnBothSides() async throws {
        let hosts = try TestHostSet(count: 2)
        defer { hosts.tearDown() }
        let out = "/tmp/handoffd-e2e/\(hosts.name)-out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        hosts.removeOnTearDown(out)
        let (a, b) = try await startPaired(
            hosts,
            configA: DaemonHost.hawkNotesTypes + """
                  - type: org.example.onlyA
                  - type: org.example.req
                  - type: org.example.exec
                  - type: org.example.live
                  - type: org.example.web

                """,
            configB: DaemonHost.hawkNotesTypes + """
                  - type: org.example.req
                    required_keys: [note]
                  - type: org.example.exec
                  - type: org.example.live
                  - type: org.example.web
                handlers:
                  - types: [org.example.exec]
                    exec: ['/bin/sh', '-c', 'cat > \(out)/exec.json']
                    timeout_seconds: 5
                opener: ['/bin/sh', '-c', 'printf %s "$0" > \(out)/opened.txt']

                """)
        let eventsA = try await EventLog.watch(a)

        func publish(_ args: [String]) throws -> String {
            let r = try a.ctl(["publish", "--json"] + args)
            try #require(r.status == 0, "\(r.output)")
            return try #require(jsonField(r.output, "activity"))
        }
        func continueOnB(_ id: String) throws -> (Int32, JSONLine?) {
            let r = try b.ctl(["continue", "alpha", id, "--json"])
            return (r.status, JSONLine(oneLine(r.output)))
        }

        // Exec handler: the activity as JSON on the command's stdin.
        let execID = try publish(["--type", "org.example.exec", "--info", "note=hello"])
        let (execStatus, execResult) = try continueOnB(execID)
        #expect(execStatus == 0)
        #expect(execResult?.string("step") == "exec")
        #expect(((try? String(contentsOfFile: "\(out)/exec.json", encoding: .utf8)) ?? "").contains(execID))

        // A live handler (handoffctl handle) accepts it.
        let handler = try b.ctlProcess(["handle", "org.example.live", "--name", "tester", "--count", "1"])
        #expect(handler.waitForLine(timeout: 5) { $0.hasPrefix("Handling") } != nil)
        let liveID = try publish(["--type", "org.example.live", "--title", "live one"])
        let (liveStatus, liveResult) = try continueOnB(liveID)
        #expect(liveStatus == 0)
        #expect(liveResult?.string("step") == "app")
        #expect(liveResult?.string("handler") == "tester")
        #expect(handler.waitForLine(timeout: 5) { $0.contains(liveID) } != nil)

        // webpageURL fallback through the configured opener.
        let webID = try publish(["--type", "org.example.web", "--url", "https://example.org/hawk?x=1"])
        let (webStatus, webResult) = try continueOnB(webID)
        #expect(webStatus == 0)
        #expect(webResult?.string("step") == "webpage")
        #expect((try? String(contentsOfFile: "\(out)/opened.txt", encoding: .utf8)) == "https://example.org/hawk?x=1")

        // Failures: exit 2 on B with the reason, and the same code reported on A.
        let pell = try a.hawknotes(["publish", "--character", "Pell", "--expires", "1", "--json"])
        let expiring = try #require(jsonField(pell.output, "activity"), "\(pell.output)")
        let cases: [(String, String)] = [
            (try publish(["--type", "org.example.onlyA"]), "undeclared-type"),
            (try publish(["--type", "org.example.req"]), "missing-required-key"),
            (expiring, "expired")
        ]
        try await waitUntil("the activity expired on alpha", timeout: 5) {
            try await a.request("activities")?.arrayValue?.contains { $0["activity"] == expiring && $0["expired"] == "true" } == true
        }
        for (id, code) in cases {
            let (status, result) = try continueOnB(id)
            #expect(status == 2, "\(code)")
            #expect(result?.string("code") == code)
            #expect(result?.string("message")?.isEmpty == false)
            try await eventsA.wait("continuationFailedOnPeer") { $0["activity"]?.stringValue == id && $0["code"]?.stringValue == code }
        }
    }
}
