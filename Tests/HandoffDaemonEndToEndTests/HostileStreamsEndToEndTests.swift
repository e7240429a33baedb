import Foundation
import HandoffClient
import HandoffControl
import HandoffCore
import HandoffTestSupport
import NIOConcurrencyHelpers
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A paired machine that abuses continuation streams, played by the Python peer (a second
/// implementation): each frame is cheap on the wire, and each used to cost handoffd objects it
/// kept. Now what a peer can make handoffd hold is bounded in entries as well as bytes.
extension ConformanceEndToEndTests {
    /// alpha, and the Python peer paired with it by address, a session open.
    static func pairedWithPython(_ hosts: TestHostSet) async throws -> (DaemonHost, PythonPeer) {
        let a = try await alpha(hosts)
        return (a, try await pairPython(with: a, hosts, name: "conformance").peer)
    }

    /// A file sent to carol is carol's: mallory, paired too and told its id, can neither list,
    /// fetch nor stream it, and alpha pushes it to nobody else.
    @Test func anActivityForOneMachineIsNoOtherMachinesToTake() async throws {
        let hosts = try TestHostSet(count: 1)
        defer { hosts.tearDown() }
        let a = try await Self.alpha(hosts)
        var finished = false
        defer { if !finished { print("alpha's log:\n\(a.log)") } }
        let carol = try await Self.pairPython(with: a, hosts, name: "carol").peer
        let mallory = try await Self.pairPython(with: a, hosts, name: "mallory").peer
        let owner = try await HandoffClient.connect(socketPath: a.socket)
        defer { Task { await owner.close() } }
        let file = try Self.bookWithStreams("For carol")
        let published = try await owner.perform(PublishRequest(activity: file, to: "carol"))
        let carolKey = try carol.ask(["op": "identity"], answer: "fingerprint").string("fingerprint")
        #expect(published.audience == carolKey, "the answer names the machine by its pinned key")
        let id = file.id.uuidString

        // mallory learned the id (as B did in the review): not listed, not fetched, no stream.
        let listed = try mallory.ask(["op": "request", "message": ["type": "list"]], answer: "reply")["reply"] as? [String: Any]
        let items = "\(listed?["items"] ?? "")"
        #expect(items.contains(id) == false, "\(items)")
        let fetched = try mallory.ask(["op": "request", "message": ["type": "fetch", "activity": id]], answer: "reply")["reply"] as? [String: Any]
        #expect(fetched?["code"] as? String == "not-found", "\(String(describing: fetched))")
        let open: [String: Any] = ["type": "streamOpen", "stream": 9, "activity": id, "window": 65_536]
        let refused = try mallory.ask(["op": "request", "message": open], answer: "reply")["reply"] as? [String: Any]
        #expect(refused?["code"] as? String == "not-continued", "\(String(describing: refused))")
        let pushed = try a.ctl(["send", id, "--to", "mallory", "--json"])
        #expect(pushed.status != 0 && pushed.output.contains("published for another machine alone"), "\(pushed.output)")

        // carol, the machine it is for, is pushed it and may stream it.
        let toCarol = try a.ctl(["send", id, "--to", "carol", "--json"])
        #expect(toCarol.status == 0 && toCarol.output.contains("continued"), "\(toCarol.output)")
        let streamed = Task { () -> String? in
            for await e in owner.events where e.name == "streamRequested" {
                try? await owner.refuseStream(e.fields["stream"]?.stringValue ?? "")
                return e.fields["fingerprint"]?.stringValue
            }
            return nil
        }
        let asked = try carol.ask(["op": "request", "message": open], answer: "reply", timeout: 15)["reply"] as? [String: Any]
        #expect(asked?["code"] as? String == "stream-refused", "\(String(describing: asked))")
        #expect(await streamed.value == carolKey, "alpha's app is asked for carol's stream, by carol's key")
        finished = true
    }

    @Test func aHostilePeersStreamFramesCostBoundedMemory() async throws {
        let hosts = try TestHostSet(count: 1)
        defer { hosts.tearDown() }
        let (a, py) = try await Self.pairedWithPython(hosts)
        var finished = false
        defer { if !finished { print("alpha's log:\n\(a.log)") } }
        let events = try await EventLog.watch(a)
        let pid = try #require(a.process?.pid)

        // alpha's app offers an activity with streams; the Python peer fetched it, so it may ask.
        let owner = try await HandoffClient.connect(socketPath: a.socket)
        defer { Task { await owner.close() } }
        let offered = try Self.bookWithStreams("Streams")
        _ = try await owner.perform(PublishRequest(activity: offered))
        _ = try py.ask(["op": "request", "message": ["type": "fetch", "activity": offered.id.uuidString]], answer: "reply")
        let accepted = NIOLockedValueBox<[HandoffStream]>([])
        let accepting = Task {
            for await e in owner.events where e.name == "streamRequested" {
                if let s = try? await owner.acceptStream(e.fields["stream"]?.stringValue ?? "") { accepted.withLockedValue { $0.append(s) } }
            }
        }
        defer { accepting.cancel() }
        func open(_ stream: Int, window: Int) throws {
            let message: [String: Any] = ["type": "streamOpen", "stream": stream, "activity": offered.id.uuidString, "window": window]
            // Answered once alpha's app accepted (handoffd waits up to 10 s for it): more than the usual 10 s.
            let reply = try py.ask(["op": "request", "message": message, "timeout": 20], answer: "reply", timeout: 25)["reply"] as? [String: Any]
            #expect(reply?["type"] as? String == "streamAccepted", "\(String(describing: reply))")
        }
        let before = Blocking.rss(pid)

        // A resume storm: alpha's app writes 4 MiB that the peer never acknowledges, and the peer
        // asks for all of it again 250 times (each used to queue another 4 MiB copy). One resume
        // a session is the protocol: the second resets the stream.
        try open(1, window: 4 << 20)
        try await waitUntil("alpha's app has the first stream", timeout: 10) { accepted.withLockedValue { $0.count } == 1 }
        let first = accepted.withLockedValue { $0[0] }
        let wrote = await Blocking.write(first.descriptor, count: 4 << 20, halfClose: false)
        #expect(wrote.bytes == 4 << 20)
        _ = try py.ask(["op": "frames", "type": 5, "stream": 1, "offset": 0, "count": 250], answer: "sent")
        try await waitUntil("the resume storm resets the stream", timeout: 10) {
            try py.events().contains { $0["frame"] as? Int == 4 && $0["stream"] as? Int == 1 && $0["code"] as? String == "stream-protocol" }
        }
        #expect(
            await first.outcome(timeout: .seconds(10))
                == .failed(code: "stream-protocol", message: "the peer broke the stream protocol: a second resume on one session"))

        // 100,000 one-byte data frames to an app that does not read: within alpha's window, and
        // held as one buffer (each used to cost a task, a buffer, a write and its promise).
        try open(2, window: 65_536)
        try await waitUntil("alpha's app has the second stream", timeout: 10) { accepted.withLockedValue { $0.count } == 2 }
        let sent = try py.ask(
            ["op": "frames", "type": 1, "stream": 2, "data": "x", "count": 100_000, "each_offset": true], answer: "sent", timeout: 60)
        #expect(sent["sent"] as? Int == 100_000)
        _ = try py.ask(["op": "request", "message": ["type": "ping"]], answer: "reply")
        let afterTiny = Blocking.rss(pid)
        // (Each frame cost about 300 bytes: 100,000 of them were about 30 MiB.)
        #expect(afterTiny - before < 8 << 10, "RSS grew by \(afterTiny - before) KiB")

        // Frames for streams that do not exist, from a peer that reads none of the answers: each
        // answer is a write the session counts, and past its bound the peer is closed as stalled.
        // (A new session with a small receive buffer: what the kernel holds for a peer that
        // does not read is then small, and alpha's own bound is what is met.)
        _ = try py.ask(["op": "session", "host": "127.0.0.1", "port": 7340, "rcvbuf": 4096], answer: "hello")
        _ = try py.ask(["op": "stall"], answer: "stalled")
        _ = try py.ask(["op": "frames", "type": 1, "stream": 1_000, "data": "y", "count": 50_000, "each_stream": true], answer: "sent", timeout: 60)
        try await events.wait("peerAbsent", timeout: 20) { $0["peer"]?.stringValue == "conformance" && $0["reason"]?.stringValue == "stalled" }
        let after = Blocking.rss(pid)
        #expect(after - before < 32 << 10, "RSS grew by \(after - before) KiB")
        #expect(try await a.request("status") != nil, "alpha still answers")
        for s in accepted.withLockedValue({ $0 }) { s.close() }
        finished = true
    }
}
