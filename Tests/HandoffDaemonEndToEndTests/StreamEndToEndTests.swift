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

/// Continuation streams between real handoffd processes on two test hosts, the apps
/// driven through HandoffClient (their ends are real sockets) and handoffctl.
@Suite(
    .serialized, .timeLimit(.minutes(3)), .enabled(if: TestHostSet.unavailableReason == nil, Comment(rawValue: TestHostSet.unavailableReason ?? "")))
struct StreamEndToEndTests {
    @Test func echoABigTransferAndSendFile() async throws {
        let hosts = try TestHostSet(count: 2)
        defer { hosts.tearDown() }
        let (a, b) = try await startPaired(hosts, configA: StreamApps.config, configB: StreamApps.config)
        let apps = try await StreamApps.continued(a, b)
        defer { Task { await apps.close() } }

        // Echo: B's bytes come back from A's app; both ends finish cleanly.
        let (b1, a1) = try await apps.open()
        async let echoed = Blocking.echo(a1.descriptor)
        let hello = Array("hello, stream".utf8)
        let sent = await Blocking.run { hello.withUnsafeBytes { write(b1.descriptor, $0.baseAddress, $0.count) } }
        #expect(sent == hello.count)
        shutdown(b1.descriptor, Int32(SHUT_WR))
        let back = await Blocking.read(b1.descriptor)
        #expect(back.bytes == hello.count)
        #expect(await echoed == hello.count)
        #expect(await b1.outcome(timeout: .seconds(10)) == .finished(sent: Int64(hello.count), received: Int64(hello.count)))
        #expect(await a1.outcome(timeout: .seconds(10)).isFinished)
        b1.close()
        a1.close()

        // 256 MiB from B's app to A's: every byte, in order (SHA-256 on both ends).
        let (b2, a2) = try await apps.open()
        let size = 256 << 20
        async let got = Blocking.read(a2.descriptor)
        let wrote = await Blocking.write(b2.descriptor, count: size)
        shutdown(a2.descriptor, Int32(SHUT_WR))
        let read = await got
        #expect(read.bytes == size)
        #expect(read.sha == wrote.sha)
        #expect(await b2.outcome(timeout: .seconds(20)).isFinished)
        b2.close()
        a2.close()

        // handoffctl send-file to a `handoffctl receive` on the other machine.
        let inbox = a.dir + "/inbox"
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        let file = b.dir + "/notes.txt"
        let content = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try content.write(to: URL(fileURLWithPath: file))
        let receiver = try a.ctlProcess(["receive", "--dir", inbox, "--count", "2"])
        defer { receiver.stop() }
        #expect(receiver.waitForLine(timeout: 10) { $0.contains("Receiving files") } != nil)
        let sentFile = try b.ctl(["send-file", file, "--to", "alpha", "--json"])
        #expect(sentFile.status == 0, "\(sentFile.output) \((try? String(contentsOfFile: a.dir + "/handoffctl.err", encoding: .utf8)) ?? "")")
        #expect(jsonField(sentFile.output, "outcome") == "sent")
        #expect(FileManager.default.contents(atPath: inbox + "/notes.txt") == content)
        // The same name again: saved beside it, never over it, and no part file left behind.
        let again = try b.ctl(["send-file", file, "--to", "alpha", "--json"])
        #expect(again.status == 0 && jsonField(again.output, "receiver")?.hasSuffix("notes (1).txt") == true, "\(again.output)")
        #expect(FileManager.default.contents(atPath: inbox + "/notes (1).txt") == content)
        #expect(try FileManager.default.contentsOfDirectory(atPath: inbox).sorted() == ["notes (1).txt", "notes.txt"])
        #expect(receiver.waitForExit(timeout: 10) == 0)
        // Nothing receiving there any more: said as what to do.
        let nobody = try b.ctl(["send-file", file, "--to", "alpha"])
        #expect(
            nobody.status == 2 && nobody.output.contains("alpha is not receiving files: run `handoffctl receive` there first"), "\(nobody.output)")
    }

    @Test func aStreamResumesAfterTheLinkIsCutAndEndsPastTheDeadline() async throws {
        let hosts = try TestHostSet(count: 2)
        defer { hosts.tearDown() }
        // A resume deadline of 10 s instead of 60, so that the second cut outlasts it quickly.
        let config = StreamApps.config + "streams:\n  resume_seconds: 10\n"
        let (a, b) = try await startPaired(hosts, configA: config, configB: config)
        let apps = try await StreamApps.continued(a, b)
        defer { Task { await apps.close() } }
        let (atB, atA) = try await apps.open()
        let size = 48 << 20
        let gate = Gate()
        async let got = Blocking.read(atA.descriptor)
        // Half is written, then the writer waits while the cable is pulled and put back.
        async let wrote = Blocking.write(atB.descriptor, count: size, pause: { done in if done >= size / 2 { gate.wait() } })
        try await waitUntil("half written", timeout: 20) { gate.isWaiting }
        _ = try hosts.run(2, ["ip", "link", "set", "eth0", "down"])
        try await waitUntil("beta finds alpha gone", timeout: 20) { try await !isPresent(b, "alpha") }
        _ = try hosts.run(2, ["ip", "link", "set", "eth0", "up"])
        try await waitUntil("beta finds alpha again", timeout: 30) { try await isPresent(b, "alpha") }
        gate.open()
        let w = await wrote
        shutdown(atA.descriptor, Int32(SHUT_WR))
        let r = await got
        #expect(r.bytes == size)
        #expect(r.sha == w.sha)
        #expect(await atB.outcome(timeout: .seconds(20)).isFinished)
        #expect(await atA.outcome(timeout: .seconds(20)).isFinished)
        #expect(b.log.contains("a stream resumes on a new session"))

        // Down for longer than the deadline: both apps hear why, and nothing waits for ever.
        try await waitUntil("alpha finds beta again", timeout: 30) { try await isPresent(a, "beta") }
        let (b2, a2) = try await apps.open()
        _ = try hosts.run(2, ["ip", "link", "set", "eth0", "down"])
        async let lostB = b2.outcome(timeout: .seconds(40))
        async let lostA = a2.outcome(timeout: .seconds(40))
        let (ob, oa) = await (lostB, lostA)
        _ = try hosts.run(2, ["ip", "link", "set", "eth0", "up"])
        for outcome in [ob, oa] {
            guard case .failed(let code, let message) = outcome else {
                Issue.record("an app was told \(outcome)")
                continue
            }
            #expect(code == "stream-link-lost" && message.contains("more than 10 s"), "\(message)")
        }
        b2.close()
        a2.close()
    }

    @Test func aDaemonRestartMidStreamFailsCleanlyOnBothSides() async throws {
        let hosts = try TestHostSet(count: 2)
        defer { hosts.tearDown() }
        let (a, b) = try await startPaired(hosts, configA: StreamApps.config, configB: StreamApps.config)
        let apps = try await StreamApps.continued(a, b)
        let (atB, atA) = try await apps.open()
        let progress = NIOLockedValueBox(0)
        async let wrote = Blocking.write(atB.descriptor, count: 4 << 30, progress: { n in progress.withLockedValue { $0 = n } })
        async let got = Blocking.read(atA.descriptor)
        try await waitUntil("bytes flowing", timeout: 20) { progress.withLockedValue { $0 } > 8 << 20 }
        a.stop()
        // A's app: its socket ends; B's app: the write fails and handoffd says why.
        _ = await got
        let w = await wrote
        #expect(w.bytes < 4 << 30)
        // At once, with the reason: alpha queues its streams' resets before its goodbye (a reset
        // that came after the goodbye went unread, and beta waited its 60 s for a resume).
        let outcome = await atB.outcome(timeout: .seconds(20))
        guard case .failed(let code, let message) = outcome else {
            Issue.record("beta's app was told \(outcome)")
            return
        }
        #expect(["stream-daemon-stopping", "stream-unknown"].contains(code), "\(code): \(message)")
        atB.close()
        atA.close()
        await apps.close()
        try await waitUntil("beta holds no stream", timeout: 10) { try await b.request("status")?["streams"] == "0" }
        // handoffd on alpha comes back, and streams work again.
        try await a.start()
        let again = try await StreamApps.continued(a, b)
        defer { Task { await again.close() } }
        let (b2, a2) = try await again.open()
        async let echoed = Blocking.echo(a2.descriptor)
        _ = await Blocking.write(b2.descriptor, count: 1 << 20)
        #expect(await Blocking.read(b2.descriptor).bytes == 1 << 20)
        #expect(await echoed == 1 << 20)
        b2.close()
        a2.close()
    }

    @Test func sixteenStreamsAtOnceAndNoMore() async throws {
        let hosts = try TestHostSet(count: 2)
        defer { hosts.tearDown() }
        let (a, b) = try await startPaired(hosts, configA: StreamApps.config, configB: StreamApps.config)
        let apps = try await StreamApps.continued(a, b)
        defer { Task { await apps.close() } }
        var pairs: [(HandoffStream, HandoffStream)] = []
        for _ in 0..<16 { pairs.append(try await apps.open()) }
        // The seventeenth is refused at once, with the limit named.
        do {
            _ = try await apps.continuer.openStream(activity: apps.activity)
            Issue.record("a seventeenth stream was opened")
        } catch {
            #expect(error.code == "too-many-streams", "\(error)")
        }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for (atB, atA) in pairs {
                group.addTask {
                    async let echoed = Blocking.echo(atA.descriptor)
                    async let back = Blocking.read(atB.descriptor)
                    let w = await Blocking.write(atB.descriptor, count: 2 << 20, seed: UInt8(truncatingIfNeeded: atB.descriptor))
                    let r = await back
                    _ = await echoed
                    return r.bytes == w.bytes && r.sha == w.sha
                }
            }
            for try await ok in group { #expect(ok) }
        }
        for (atB, atA) in pairs {
            #expect(await atB.outcome(timeout: .seconds(20)).isFinished)
            atB.close()
            atA.close()
        }
    }

    /// `receive` takes a file only within its limits, and writes only to a file of its own: a
    /// file too large is refused before a byte is written (the sender prints why), and a file
    /// that was there (a download in progress named like ours used to be) is left alone.
    @Test func aFileBeyondTheReceiversLimitsIsRefusedAndNothingOfTheirsIsTouched() async throws {
        let hosts = try TestHostSet(count: 2)
        defer { hosts.tearDown() }
        let (a, b) = try await startPaired(hosts, configA: StreamApps.config, configB: StreamApps.config)
        let inbox = a.dir + "/inbox"
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        let download = Data("a download in progress".utf8)
        try download.write(to: URL(fileURLWithPath: inbox + "/big.bin.part"))
        let file = b.dir + "/big.bin"
        try Data(count: 300_000).write(to: URL(fileURLWithPath: file))
        let receiver = try a.ctlProcess(["receive", "--dir", inbox, "--max-size", "100K"])
        defer { receiver.stop() }
        #expect(receiver.waitForLine(timeout: 10) { $0.contains("Receiving files") } != nil)
        let sent = try b.ctl(["send-file", file, "--to", "alpha"])
        #expect(sent.status != 0 && sent.output.contains("more than the 100.0 KiB this machine takes"), "\(sent.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: inbox) == ["big.bin.part"])
        #expect(FileManager.default.contents(atPath: inbox + "/big.bin.part") == download)
        // A file within the limit still comes, named by its own name; the sender hears the name alone.
        let small = b.dir + "/small.bin"
        try Data(count: 50_000).write(to: URL(fileURLWithPath: small))
        let ok = try b.ctl(["send-file", small, "--to", "alpha", "--json"])
        #expect(ok.status == 0 && jsonField(ok.output, "receiver") == "saved small.bin", "\(ok.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: inbox).sorted() == ["big.bin.part", "small.bin"])
    }

    @Test func aReaderThatStopsAndAnAppThatLeaves() async throws {
        let hosts = try TestHostSet(count: 2)
        defer { hosts.tearDown() }
        let (a, b) = try await startPaired(hosts, configA: StreamApps.config, configB: StreamApps.config)
        let apps = try await StreamApps.continued(a, b)
        defer { Task { await apps.close() } }

        // A stream to an activity never continued here is refused, and says what to do.
        do {
            _ = try await apps.continuer.openStream(activity: UUID())
            Issue.record("a stream was opened for an activity never continued")
        } catch {
            #expect(error.code == "not-continued", "\(error)")
        }

        // A's app never reads: B's writes stop, and neither daemon holds much more than a window.
        let (atB, atA) = try await apps.open()
        let pa = try #require(a.process?.pid), pb = try #require(b.process?.pid)
        let before = (Blocking.rss(pa), Blocking.rss(pb))
        let progress = NIOLockedValueBox(0)
        async let wrote = Blocking.write(atB.descriptor, count: 512 << 20, progress: { n in progress.withLockedValue { $0 = n } })
        var last = -1
        try await waitUntil("the writer stalls", timeout: 30) {
            let now = progress.withLockedValue { $0 }
            defer { last = now }
            return now == last && now > 0
        }
        let stalled = progress.withLockedValue { $0 }
        #expect(stalled < 16 << 20, "\(stalled) bytes were taken from a stream nobody reads")
        let growth = (Blocking.rss(pa) - before.0, Blocking.rss(pb) - before.1)
        #expect(growth.0 < 32 << 10 && growth.1 < 32 << 10, "RSS grew by \(growth.0) and \(growth.1) KiB")

        // A's app leaves mid-stream: B's writer is released and told why.
        atA.close()
        let w = await wrote
        #expect(w.bytes < 512 << 20)
        let outcome = await atB.outcome(timeout: .seconds(20))
        #expect(
            outcome == .failed(code: "stream-app-closed", message: "the app closed the stream on alpha before it ended")
                || !outcome.isFinished)
        atB.close()
    }
}

/// A writer held at a point until the test opens the gate.
final class Gate: @unchecked Sendable {
    private let condition = NSCondition()
    private var opened = false
    private var waiting = false

    var isWaiting: Bool { condition.withLock { waiting } }

    func wait() {
        condition.withLock {
            waiting = true
            while !opened { condition.wait() }
        }
    }

    func open() {
        condition.withLock {
            opened = true
            condition.broadcast()
        }
    }
}

extension StreamOutcome {
    var isFinished: Bool { if case .finished = self { true } else { false } }
}
