import Foundation
import HandoffTestSupport
import Testing

/// End to end through `handoffctl pair --accept`: a man in the middle chose the
/// name shown beside the code and drew a fake fingerprint and code with it.
@Suite(
    .serialized, .timeLimit(.minutes(3)), .enabled(if: TestHostSet.unavailableReason == nil, Comment(rawValue: TestHostSet.unavailableReason ?? "")))
struct PairingEndToEndTests {
    /// Runs the rogue peer inside host 1 until the accepting window lets it in (or the deadline):
    /// the process once it printed its code, or ended.
    /// With `untilCode`, an attempt that got no code (the window was between two waits) is tried again.
    func rogue(_ hosts: TestHostSet, name: String, _ decision: String, untilCode: Bool = true) async throws -> ChildProcess {
        var started: ChildProcess?
        _ = try await waitUntil("the pairing window to open", timeout: 10) {
            let child = try hosts.spawn(1, BuiltProducts.path("handoff-rogue-peer"), ["pair", name, "127.0.0.1", "7340", decision])
            _ = child.waitForLine(timeout: 20) { $0.hasPrefix("code ") || $0.hasPrefix("refused") || $0.hasPrefix("failed") }
            started = child
            if untilCode { return child.output.contains { $0.hasPrefix("code ") } }
            return !child.output.contains { $0.contains("not accepting") }
        }
        return try #require(started)
    }

    @Test func aHostileNameNeverReachesTheScreen() async throws {
        let hosts = try TestHostSet(count: 1)
        defer { hosts.tearDown() }
        let a = try DaemonHost(hosts, 1, name: "alpha")
        try await a.start(waitForAvahi: false)
        let accept = try a.ctlProcess(["pair", "--accept", "--timeout", "5"])
        let hostile = "A-laptop (fingerprint 0000-1111-2222-3333)\r\nCode: 123456\r\n\u{1B}[8m"
        let child = try await rogue(hosts, name: hostile, "confirm", untilCode: false)
        _ = child.waitForExit(timeout: 20)
        child.waitForOutputEnd(timeout: 5)
        let rogue = child.output
        // The handshake fails on the name: no code, on either side.
        #expect(!rogue.contains { $0.hasPrefix("code ") }, "\(rogue)")
        #expect(accept.waitForExit(timeout: 15) != 0)
        let screen = accept.output.joined(separator: "\n")
        #expect(!screen.contains("\u{1B}") && !screen.contains("123456") && !screen.contains("Code:"), "\(screen)")
    }

    @Test func theCodeIsPrintedLastOnItsOwnLine() async throws {
        let hosts = try TestHostSet(count: 1)
        defer { hosts.tearDown() }
        let a = try DaemonHost(hosts, 1, name: "alpha")
        try await a.start(waitForAvahi: false)
        let accept = try a.ctlProcess(["pair", "--accept", "--timeout", "20"])
        // A name without controls may still lie; it cannot stand after the real fingerprint and code.
        let liar = "A (fingerprint 0000-1111-2222-3333) Code: 123456"
        let child = try await rogue(hosts, name: liar, "confirm")
        let rogue = child.output
        let code = try #require(rogue.first { $0.hasPrefix("code ") }?.dropFirst(5)).description
        let fingerprint = try #require(rogue.first { $0.hasPrefix("fingerprint ") }?.dropFirst(12)).description
        // The person types the code the other machine shows.
        _ = accept.waitForLine(timeout: 10) { $0.hasPrefix("Code: ") }
        accept.send(code)
        #expect(accept.waitForExit(timeout: 15) == 0)
        accept.waitForOutputEnd(timeout: 5)
        let lines = accept.output
        let codeLine = try #require(lines.firstIndex { $0.hasPrefix("Code: ") })
        #expect(lines[codeLine] == "Code: \(code)")
        #expect(lines[codeLine - 1] == "Its fingerprint: \(fingerprint)")
        // The asker's host: the port its connection came from is an ephemeral one.
        #expect(lines[codeLine - 2] == "Its address: 127.0.0.1")
        #expect(lines[codeLine - 3] == "Pairing with \(liar)")
        // Nothing follows the code but the outcome, printed once the person has decided.
        #expect(lines[(codeLine + 1)...].allSatisfy { $0.hasPrefix("Paired with ") }, "\(lines)")
    }

    /// A stranger that polls the port answers the window first, under the name
    /// the person expects. The person types the code the machine they mean shows: the stranger's
    /// differs, it is refused, nothing is pinned, and the same `pair --accept` takes the next
    /// attempt. Before, `pair --accept --yes` pinned the stranger.
    @Test func aStrangerFirstAtTheWindowIsNotPaired() async throws {
        let hosts = try TestHostSet(count: 1)
        defer { hosts.tearDown() }
        let a = try DaemonHost(hosts, 1, name: "alpha")
        try await a.start(waitForAvahi: false)
        // --timeout is the window's (the common answer bound took the word, and the client gave
        // up after it with "handoffd did not answer" while the window stayed open 120 s).
        let opened = ContinuousClock.now
        let nobody = try a.ctl(["pair", "--accept", "--timeout", "2"])
        let waited = ContinuousClock.now - opened
        #expect(nobody.status == 1 && nobody.output.contains("no machine started pairing within 2 s"), "\(nobody.output)")
        #expect(waited >= .seconds(2) && waited < .seconds(7), "the window lasted \(waited)")
        let accept = try a.ctlProcess(["pair", "--accept", "--timeout", "60"])
        let stranger = try await rogue(hosts, name: "beta", "confirm")
        let strangerCode = try #require(stranger.output.first { $0.hasPrefix("code ") }?.dropFirst(5)).description
        _ = accept.waitForLine(timeout: 10) { $0.hasPrefix("Code: ") }
        #expect(accept.output.contains { $0 == "Its address: 127.0.0.1" }, "the attempt's address is shown: \(accept.output)")
        accept.send(strangerCode == "000000" ? "111111" : "000000")
        #expect(stranger.waitForLine(timeout: 10) { $0.hasPrefix("failed") } != nil, "\(stranger.output)")
        // The real machine's attempt, to the same waiting `pair --accept`.
        let real = try await rogue(hosts, name: "beta", "confirm")
        let realCode = try #require(real.output.first { $0.hasPrefix("code ") }?.dropFirst(5)).description
        let realFingerprint = try #require(real.output.first { $0.hasPrefix("fingerprint ") }?.dropFirst(12)).description
        _ = accept.waitForLine(timeout: 10) { $0 == "Code: \(realCode)" }
        accept.send(realCode)
        #expect(accept.waitForExit(timeout: 15) == 0, "\(accept.output)")
        #expect(real.waitForLine(timeout: 10) { $0 == "paired" } != nil, "\(real.output)")
        let trusted = try #require(try await a.request("trust")?.arrayValue)
        #expect(trusted.count == 1 && trusted.first?["fingerprint"] == realFingerprint, "\(trusted)")
        // The table says when to the second, as a person reads it (it printed microseconds).
        let table = try a.ctl(["trust"]).output
        #expect(
            table.contains(realFingerprint) && table.range(of: #"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC"#, options: .regularExpression) != nil, "\(table)"
        )
    }

    /// Unpaired by the other machine, a machine forgets it as for its own `unpair`: it says so
    /// (`unpaired`, by the peer), names it in `peerAbsent`, drops what it offered from the search
    /// (which kept showing it), and its advert leaves the key that machine knew.
    @Test func anUnpairingByTheOtherMachineIsActedOnHere() async throws {
        let hosts = try TestHostSet(count: 2)
        defer { hosts.tearDown() }
        // beta's new advert comes a random gap after the old one goes, drawn around the rewrite interval.
        let (a, b) = try await startPaired(hosts, configB: DaemonHost.hawkNotesTypes + "advert_rewrite_seconds: 1\n")
        #expect(try a.hawknotes(["publish", "--character", "Pell"]).status == 0)
        func searchOnB() throws -> String { try b.ctl(["search", "pell"]).output }
        try await waitUntil("beta's search shows alpha's activity", timeout: 10) { try searchOnB().contains("Viewing Pell") }
        let advertBefore = try #require(await b.request("status")?["advertisedAs"])
        let events = try await EventLog.watch(b)
        #expect(try a.ctl(["unpair", "beta"]).status == 0)
        let told = try await events.wait("unpaired", timeout: 10) { $0["peer"]?.stringValue == "alpha" }
        #expect(told.fields["by"]?.stringValue == "peer", "\(told.fields)")
        _ = try await events.wait("peerAbsent", timeout: 10) { $0["peer"]?.stringValue == "alpha" }
        try await waitUntil("beta's search no longer shows alpha's activity", timeout: 5) { try !searchOnB().contains("Viewing Pell") }
        try await waitUntil("beta's advert rotates", timeout: 5) {
            try await b.request("status")?["advertisedAs"].map { $0 != advertBefore } ?? false
        }
    }
}
