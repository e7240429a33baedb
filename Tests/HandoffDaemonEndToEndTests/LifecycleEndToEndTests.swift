import Foundation
import HandoffClient
import HandoffControl
import HandoffCore
import HandoffTestSupport
import Testing

/// Readiness, shutdown, liveness and hostile input with real handoffd and avahi-daemon processes.
@Suite(
    .serialized, .timeLimit(.minutes(3)), .enabled(if: TestHostSet.unavailableReason == nil, Comment(rawValue: TestHostSet.unavailableReason ?? "")))
struct LifecycleEndToEndTests {
    @Test func readyOnlyWhenServingAndSIGTERMWithdrawsWithinTwoSeconds() async throws {
        let hosts = try TestHostSet(count: 2)
        defer { hosts.tearDown() }
        let a = try DaemonHost(hosts, 1, name: "alpha"), b = try DaemonHost(hosts, 2, name: "beta")
        try await b.start()
        let socket = a.socket
        let notify = try NotifyListener(path: "/tmp/handoffd-e2e/\(hosts.name)-notify.sock") { FileManager.default.fileExists(atPath: socket) }
        hosts.removeOnTearDown(notify.path)
        defer { notify.close() }
        try await a.start(environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "2000000"])
        try await waitUntil("READY=1", timeout: 10) { notify.first("READY=1") != nil }
        // When READY came, the control socket existed, and the Avahi client was up (the status).
        let ready = try #require(notify.messages.first { $0.lines.contains("READY=1") })
        #expect(ready.probe)
        #expect(ready.lines.contains("STATUS=advertising"))
        try await waitUntil("WATCHDOG=1", timeout: 3) { notify.first("WATCHDOG=1") != nil }
        // Only a paired machine can tell alpha's advert from a stranger's.
        try await pair(a, b)
        try await waitUntil("beta lists alpha", timeout: 10) { try await b.lists("alpha") }

        let process = try #require(a.process)
        let sent = Date()
        process.signal(SIGTERM)
        let status = process.waitForExit(timeout: 2)
        #expect(status == 0, "handoffd did not exit cleanly within 2 s of SIGTERM")
        #expect(Date().timeIntervalSince(sent) < 2)
        #expect(notify.first("STOPPING=1") != nil)
        // The advert was withdrawn: beta unlists alpha without waiting for a timeout.
        try await waitUntil("beta unlists alpha", timeout: 5) { try await b.peer("alpha")?["listed"] == "false" }
    }

    /// A handoffd that is stopped (SIGSTOP: a debugger, a frozen cgroup) takes connections but
    /// answers nothing: handoffctl gives up after its bound with exit 3 and says what to check,
    /// and the same command is answered once the daemon runs again.
    @Test func aStoppedDaemonIsGivenUpOnAndAnswersWhenContinued() async throws {
        let hosts = try TestHostSet(count: 1)
        defer { hosts.tearDown() }
        let a = try DaemonHost(hosts, 1, name: "alpha")
        try await a.start()
        let running = try #require(a.process)
        running.signal(SIGSTOP)
        let stopped = Result { try a.ctl(["status", "--timeout", "0.5"]) }
        running.signal(SIGCONT)
        let (status, output) = try stopped.get()
        #expect(status == 3, "\(output)")
        #expect(output.contains("handoffd did not answer `status` within 0.5 s"), "\(output)")
        let again = try a.ctl(["status", "--json"])
        #expect(again.status == 0 && again.output.contains("uptimeSeconds"), "\(again.output)")
        a.stop()
    }

    /// SIGINT (Ctrl-C in a terminal) stops handoffd as SIGTERM does, and a SIGTERM that comes
    /// while it is still starting is kept until its event loop reads it (`StopSignals`), then
    /// stops it cleanly too: not the process ended by the signal's default action.
    @Test func sigintAndASIGTERMDuringStartStopCleanly() async throws {
        let hosts = try TestHostSet(count: 1)
        defer { hosts.tearDown() }
        let a = try DaemonHost(hosts, 1, name: "alpha")
        try await a.start()
        let running = try #require(a.process)
        running.signal(SIGINT)
        #expect(running.waitForExit(timeout: 2) == 0, "handoffd did not exit cleanly within 2 s of SIGINT")
        #expect(a.log.contains("signal=SIGINT"))

        try a.launch()
        let starting = try #require(a.process)
        // handoffd's main has taken SIGTERM and SIGINT (blocked, read from a signalfd): the
        // first thing it does, long before it answers.
        try await waitUntil("handoffd's stop signals blocked", timeout: 10) { Self.blocksStopSignals(starting.pid) }
        starting.signal(SIGTERM)
        #expect(starting.waitForExit(timeout: 5) == 0, "handoffd signalled while starting did not exit cleanly within 5 s")
        #expect(a.log.contains("signal=SIGTERM"))
    }

    /// The process is handoffd (sh has exec'd it) and its main thread blocks SIGINT and SIGTERM.
    static func blocksStopSignals(_ pid: Int32) -> Bool {
        guard (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.hasPrefix("handoffd") == true,
            let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigBlk:") }),
            let mask = UInt64(line.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        let wanted: UInt64 = 1 << (UInt64(SIGINT) - 1) | 1 << (UInt64(SIGTERM) - 1)
        return mask & wanted == wanted
    }

    @Test func avahiRestartAndSIGKILLedPeer() async throws {
        let hosts = try TestHostSet(count: 2)
        defer { hosts.tearDown() }
        // alpha rewrites its TXT every second on average (30 s by default): the proof below is a
        // rewrite that comes after the restart.
        let (a, b) = try await startPaired(hosts, configA: DaemonHost.hawkNotesTypes + "advert_rewrite_seconds: 1\n")
        try await waitUntil("alpha present on beta", timeout: 10) { try await b.peer("alpha")?["present"] == "true" }

        // A's avahi-daemon restarts: A publishes again by itself and B sees it again. Avahi may fold
        // the removal and the new record into one change, so the proof is a TXT change made after
        // the restart (one of alpha's rewrites, which come at random moments) reaching B through A's
        // new avahi-daemon.
        let eventsB = try await EventLog.watch(b)
        try hosts.avahi(1, "restart")
        try await waitUntil("alpha's avahi client is back", timeout: 15) { a.log.components(separatedBy: "avahi-daemon reachable").count > 2 }
        let before = eventsB.all.count
        let published = try a.hawknotes(["publish", "--character", "Mira Thale", "--json"])
        let id = try #require(jsonField(published.output, "activity"))
        try await waitUntil("beta sees alpha's new TXT", timeout: 5) {
            eventsB.all.dropFirst(before).contains {
                ($0.name == "peerChanged" || $0.name == "peerAppeared") && $0.fields["peer"]?.stringValue == "alpha"
            }
        }
        try await waitUntil("alpha answers beta again", timeout: 10) { try await b.peer("alpha")?["present"] == "true" }
        try await waitUntil("beta lists alpha's activity", timeout: 2) {
            try await b.request("activities", ["peer": "alpha"])?.arrayValue?.contains { $0["activity"] == id } == true
        }

        // A dies without a goodbye: its avahi-daemon and handoffd are SIGKILLed, so B's Avahi
        // keeps the record; B must still show A gone within 10 s, because A stops answering.
        try hosts.avahi(1, "kill")
        a.process?.signal(SIGKILL)
        let gone = try await waitUntil("beta shows alpha absent", timeout: 10) { try await b.peer("alpha")?["present"] != "true" }
        #expect(gone < 10)
    }

    @Test func unpairedHostIsRefusedAndGarbageFramesAreDropped() async throws {
        let hosts = try TestHostSet(count: 3)
        defer { hosts.tearDown() }
        let a = try DaemonHost(hosts, 1, name: "alpha"), b = try DaemonHost(hosts, 2, name: "beta"), c = try DaemonHost(hosts, 3, name: "gamma")
        try await a.start()
        try await b.start()
        try await c.start()
        try await pair(a, b)
        let published = try a.hawknotes(["publish", "--character", "Greta Lind", "--json"])
        let id = try #require(jsonField(published.output, "activity"))

        // C is not paired: alpha's advert names nothing it can use, so it can neither list, fetch
        // nor push; each refusal says where to look.
        for args in [["activities", "--peer", "alpha"], ["continue", "alpha", id]] {
            let r = try c.ctl(args)
            #expect(r.status == 1, "\(args)")
            #expect(r.output.contains("no peer named 'alpha'"), "\(r.output)")
        }
        let cOwn = try c.hawknotes(["publish", "--character", "Pell", "--json"])
        let cID = try #require(jsonField(cOwn.output, "activity"))
        #expect(try c.ctl(["send", cID, "--to", "alpha"]).status == 1)
        // Nor does alpha show gamma: an advert no paired key recognises is not listed.
        #expect(try await a.peer("gamma") == nil)

        // Garbage from C's address straight at A's link port: a frame with a bad preamble, and a
        // length header above the limit. A closes both connections and keeps serving B.
        let address = try hosts.address(1)
        for bytes in ["\\x00\\x00\\x00\\x08GARBAGE!", "\\xff\\xff\\xff\\xff"] {
            let script = "exec 3<>/dev/tcp/\(address)/7340 && printf '\(bytes)' >&3 && timeout 5 cat <&3 >/dev/null; echo rc=$?"
            let out = try hosts.run(3, ["/bin/bash", "-c", script])
            #expect(out.contains("rc=0"), "A did not close the connection: \(out)")
        }
        let continued = try b.ctl(["continue", "alpha", id])
        #expect(continued.status == 0, "\(continued.output)")
        #expect(continued.output.contains("Greta Lind"))
        #expect(a.process?.isRunning == true)
    }
}
