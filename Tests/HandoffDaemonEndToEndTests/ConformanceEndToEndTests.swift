import Foundation
import HandoffControl
import HandoffClient
import HandoffCore
import HandoffTestSupport
import Testing

/// A second implementation of the peer side, written in Python from docs/LINK.md,
/// docs/PROTOCOL.md and docs/ENCODING.md with Debian's Noise library (Tests/Rigs/conformance-peer.py),
/// against a real handoffd: if the docs leave something out, this peer cannot do its part.
@Suite(
    .serialized, .timeLimit(.minutes(3)), .enabled(if: TestHostSet.unavailableReason == nil, Comment(rawValue: TestHostSet.unavailableReason ?? "")))
struct ConformanceEndToEndTests {
    static let burningSwift = "E34747BE-30DC-4DD8-B191-BC6C56B9B9A3"

    /// The Python peer in host 1, driven by JSON lines.
    final class PythonPeer: @unchecked Sendable {
        let child: ChildProcess
        private var seen = 0

        init(_ hosts: TestHostSet, dir: String, name: String = "conformance") throws {
            let script = TestHostSet.repositoryRoot.appendingPathComponent("Tests/Rigs/conformance-peer.py").path
            child = try hosts.spawn(
                1, "/usr/bin/python3",
                [script, "key=\(dir)/\(name).key", "name=\(name)", "types=" + DaemonHost.hawkNotesTypeNames.joined(separator: ",")])
        }

        deinit { child.stop() }

        /// Sends a command and returns its answer (the next line with `key`, or an error line).
        func ask(_ command: [String: Any], answer key: String, timeout: Double = 10) throws -> JSONLine {
            let data = try JSONSerialization.data(withJSONObject: command)
            child.send(String(decoding: data, as: UTF8.self))
            guard let line = child.waitForJSON(from: seen, timeout: timeout, { $0[key] != nil || $0["error"] != nil }) else {
                throw TimedOut(what: "the Python peer's answer to \(command["op"] ?? "?") (it printed \(child.output.suffix(3)))")
            }
            seen = line.index + 1
            if let error = line.string("error") { throw TimedOut(what: "the Python peer failed \(command["op"] ?? "?"): \(error)") }
            return line
        }

        func events() throws -> [[String: Any]] { (try ask(["op": "events"], answer: "events")["events"] as? [[String: Any]]) ?? [] }
    }

    /// A Python peer, named `name`, paired with `a` by address (each side given the code the other
    /// shows, which both derive alike from the docs), and a session open; `listen`: first
    /// listening, so that alpha can dial it. The peer and its session's hello.
    static func pairPython(with a: DaemonHost, _ hosts: TestHostSet, name: String, listen: Bool = false) async throws -> (
        peer: PythonPeer, hello: JSONLine
    ) {
        let py = try PythonPeer(hosts, dir: a.dir, name: name)
        let accept = try a.ctlProcess(["pair", "--accept", "--json", "--timeout", "30"])
        var pyCode: String?
        try await waitUntil("the Python peer reaches alpha's open window", timeout: 10) {
            pyCode = try? py.ask(["op": "pair", "host": "127.0.0.1", "port": 7340], answer: "code").string("code")
            return pyCode != nil
        }
        let alphaCode = try #require(accept.waitForJSON(timeout: 10) { $0.string("code") != nil }?.string("code"))
        #expect(alphaCode == pyCode, "both sides derive the same code from the docs")
        accept.send(try #require(pyCode))
        let paired = try py.ask(["code": alphaCode], answer: "paired")
        #expect(accept.waitForExit(timeout: 10) == 0, "\(accept.output)")
        let status = try #require(try await a.request("status"))
        #expect(paired.string("paired") == status["fingerprint"])
        if listen { _ = try py.ask(["op": "listen", "port": 0], answer: "listening") }
        return (py, try py.ask(["op": "session", "host": "127.0.0.1", "port": 7340], answer: "hello"))
    }

    /// alpha alone in test host 1 (the Python peers reach it on loopback: no advert needed).
    static func alpha(_ hosts: TestHostSet) async throws -> DaemonHost {
        let a = try DaemonHost(hosts, 1, name: "alpha")
        try await a.start(waitForAvahi: false)
        return a
    }

    /// An activity of alpha's app that supports continuation streams.
    static func bookWithStreams(_ title: String) throws -> UserActivity {
        var activity = UserActivity(type: try ActivityType("org.hawknotes.bookDetail"), title: title)
        try activity.addUserInfoEntries(["bookID": .string(burningSwift)])
        activity.supportsContinuationStreams = true
        return activity
    }

    @Test func aPeerWrittenFromTheDocsPairsContinuesAndIsDialled() async throws {
        let hosts = try TestHostSet(count: 1)
        defer { hosts.tearDown() }
        let a = try await Self.alpha(hosts)
        // When it fails, alpha's log says what it did with the Python peer's sessions.
        var finished = false
        defer { if !finished { print("alpha's log:\n\(a.log)") } }
        let events = try await EventLog.watch(a)
        // Pairing by address (each side given the code the other shows), then a session: hello,
        // a pushed `changed`, list, fetch, and the `continued` report.
        let (py, hello) = try await Self.pairPython(with: a, hosts, name: "conformance", listen: true)
        #expect((hello["hello"] as? [String: Any])?["device"] as? String == "alpha")
        let published = try a.hawknotes(["publish", "--character", "Lady Beatrice", "--json"])
        let id = try #require(jsonField(published.output, "activity"))
        var told: [String: Any]?
        try await waitUntil("alpha pushes `changed` to the Python peer", timeout: 5) {
            told = try py.events().last { $0["type"] as? String == "changed" && "\($0["items"] ?? "")".contains(id) }
            return told != nil
        }
        // Each summary says when the activity last changed (a date: the Python peer shows it as
        // seconds since 1970), here a moment ago.
        let summary = try #require((told?["items"] as? [[String: Any]])?.first { $0["activity"] as? String == id })
        let updated = try #require(summary["updated"] as? Double, "\(summary)")
        #expect(abs(updated - Date().timeIntervalSince1970) < 120, "\(summary)")
        // Its own list, told with the time of its last change, is listed so by alpha.
        let theirs = UUID().uuidString
        _ = try py.ask(
            [
                "op": "changed",
                "items": [["activity": theirs, "type": "org.hawknotes.bookDetail", "title": "Old news", "version": 1, "updated": 1_780_000_000]]
            ], answer: "sent")
        try await waitUntil("alpha lists the Python peer's activity with its time", timeout: 5) {
            let listed = try a.ctl(["activities", "--peer", "conformance", "--json"]).output
            return listed.contains(theirs) && listed.contains("2026-05-28T20:26:40")
        }
        #expect(try a.ctl(["activities", "--peer", "conformance"]).output.contains("2026-05-28"))
        let list = try py.ask(["op": "request", "message": ["type": "list"]], answer: "reply")["reply"] as? [String: Any]
        #expect(list?["type"] as? String == "activities" && "\(list?["items"] ?? "")".contains(id))
        let fetched = try py.ask(["op": "request", "message": ["type": "fetch", "activity": id]], answer: "reply")["reply"] as? [String: Any]
        let activity = try #require(fetched?["activity"] as? [String: Any], "\(String(describing: fetched))")
        #expect(activity["id"] as? String == id && activity["title"] as? String != nil)
        let version = try #require(activity["version"] as? Int)
        _ = try py.ask(
            ["op": "send", "message": ["type": "continued", "activity": id, "version": version, "outcome": "continued"]], answer: "sent")
        try await events.wait("userActivityWasContinued") { $0["activity"]?.stringValue == id && $0["peer"]?.stringValue == "conformance" }

        // A push from the Python peer, dispatched here to a scene.
        let pushed =
            try py.ask(
                ["op": "push", "activityType": "org.hawknotes.bookDetail", "title": "The Burning Swift", "userInfo": ["bookID": Self.burningSwift]],
                answer: "reply")["reply"] as? [String: Any]
        #expect(pushed?["type"] as? String == "outcome" && pushed?["outcome"] as? String == "continued", "\(String(describing: pushed))")

        // Streams, from the docs alone: a stream for an activity it was never given is refused; once
        // fetched, alpha's app accepts one, reads the Python peer's data frame, and a lying ack
        // resets the stream on both sides; a frame for an unknown stream is answered with a reset.
        let owner = try await HandoffClient.connect(socketPath: a.socket)
        defer { Task { await owner.close() } }
        let withStreams = try Self.bookWithStreams("Streams")
        _ = try await owner.perform(PublishRequest(activity: withStreams))
        let sid = 12_345
        let open: [String: Any] = ["type": "streamOpen", "stream": sid, "activity": withStreams.id.uuidString, "window": 65_536]
        let refused = try py.ask(["op": "request", "message": open], answer: "reply")["reply"] as? [String: Any]
        #expect(refused?["type"] as? String == "error" && refused?["code"] as? String == "not-continued", "\(String(describing: refused))")
        _ = try py.ask(["op": "request", "message": ["type": "fetch", "activity": withStreams.id.uuidString]], answer: "reply")
        let accepting = Task { () -> HandoffStream? in
            for await e in owner.events where e.name == "streamRequested" {
                return try? await owner.acceptStream(e.fields["stream"]?.stringValue ?? "")
            }
            return nil
        }
        let accepted = try py.ask(["op": "request", "message": open], answer: "reply")["reply"] as? [String: Any]
        #expect(accepted?["type"] as? String == "streamAccepted", "\(String(describing: accepted))")
        let stream = try #require(await accepting.value)
        _ = try py.ask(["op": "frame", "type": 1, "stream": sid, "offset": 0, "data": "from python"], answer: "sent")
        let fromPython = await Blocking.run { [fd = stream.descriptor] () -> String in
            var buffer = [UInt8](repeating: 0, count: 11)
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 11) }
            return String(decoding: buffer.prefix(max(0, n)), as: UTF8.self)
        }
        #expect(fromPython == "from python")
        _ = try py.ask(["op": "frame", "type": 2, "stream": sid, "offset": 999, "window": 65_536], answer: "sent")
        #expect(
            await stream.outcome(timeout: .seconds(10))
                == .failed(code: "stream-protocol", message: "the peer broke the stream protocol: acknowledged byte 999, but only 0 were sent"))
        try await waitUntil("the Python peer is reset", timeout: 5) {
            try py.events().contains { $0["frame"] as? Int == 4 && $0["stream"] as? Int == sid && $0["code"] as? String == "stream-protocol" }
        }
        stream.close()
        _ = try py.ask(["op": "frame", "type": 1, "stream": 777, "offset": 0, "data": "x"], answer: "sent")
        try await waitUntil("a frame for an unknown stream is reset", timeout: 5) {
            try py.events().contains { $0["frame"] as? Int == 4 && $0["stream"] as? Int == 777 && $0["code"] as? String == "stream-unknown" }
        }

        // Being dialled: with the session closed, alpha pushes to the Python peer by dialling the
        // address the session came from at the port its hello gave.
        // A goodbye and the close right behind it, as a stopping machine sends them: absent as
        // `goodbye` (the close reaches alpha in the same read, before its reader took the goodbye).
        _ = try py.ask(["op": "goodbye"], answer: "closed")
        try await events.wait("peerAbsent") { $0["peer"]?.stringValue == "conformance" && $0["reason"]?.stringValue == "goodbye" }
        let sent = try a.ctl(["send", id, "--to", "conformance", "--json"])
        #expect(sent.status == 0 && sent.output.contains("continued"), "\(sent.output)")
        let got = try py.events()
        #expect(got.contains { $0["incoming"] != nil }, "alpha dialled the Python peer")
        #expect(got.contains { $0["type"] as? String == "push" && "\($0["activity"] ?? "")".contains(id) }, "\(got)")
        finished = true
    }
}
