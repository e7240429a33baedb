import Foundation
import HandoffClient
import HandoffControl
import HandoffCore
import HandoffTestSupport
import Testing

/// Presence comes from the authenticated link. Real handoffd and avahi-daemon processes
/// in test hosts; on the routed ones no multicast passes, so only the link can find the peer.
@Suite(
    .serialized, .timeLimit(.minutes(5)), .enabled(if: TestHostSet.unavailableReason == nil, Comment(rawValue: TestHostSet.unavailableReason ?? "")))
struct PresenceEndToEndTests {
    @Test func aRestartedPeerIsPresentAtOnceAndASIGTERMedOneGoneAtOnce() async throws {
        let hosts = try TestHostSet(count: 2)
        defer { hosts.tearDown() }
        let (a, b) = try await startPaired(hosts)
        try await waitUntil("both present", timeout: 10) { try await bothPresent(a, b) }
        try await waitUntil("alpha remembers where beta listens", timeout: 5) {
            try await a.peer("beta")?.dictionaryValue?["foundBy"]?.arrayValue?.contains("remembered") == true
        }
        let events = try await EventLog.watch(a)

        // SIGTERM: B says goodbye on its session; A marks it absent without waiting for mDNS.
        let process = try #require(b.process)
        let signalled = ContinuousClock.now
        process.signal(SIGTERM)
        let gone = try await events.first("peerAbsent", after: signalled, timeout: 5) { $0["peer"] == "beta" }
        #expect(process.waitForExit(timeout: 5) == 0)
        #expect(gone.event.fields["reason"] == "goodbye")
        let absentAfter = gone.at - signalled
        #expect(absentAfter < .milliseconds(100), "peerAbsent \(absentAfter) after SIGTERM")

        // B starts again with its state: it dials A at its last-known address at once.
        let started = ContinuousClock.now
        try await b.start(waitForAvahi: false)
        let back = try await events.first("peerPresent", after: started, timeout: 5) { $0["peer"] == "beta" }
        #expect(back.event.fields["reason"] == "session")
        let presentAfter = back.at - started
        // From the moment B's process was spawned: its own start-up is included, in a debug build
        // on a busy machine (about 90 ms here); Benchmarks/scripts/bench-presence.sh measures the release
        // build (46.6 ms p50), where the 50 ms target applies.
        #expect(presentAfter < .milliseconds(250), "peerPresent \(presentAfter) after B was started")
        print("presence: absent \(absentAfter) after SIGTERM; present \(presentAfter) after B was started")
        #expect(try await isPresent(a, "beta"))

        // `disconnect` closes the sessions, and says (as `peers` soon shows) that they come back.
        let closed = ContinuousClock.now
        let disconnect = try a.ctl(["disconnect", "beta"])
        #expect(disconnect.status == 0 && disconnect.output.contains("connect again by themselves"), "\(disconnect.output)")
        _ = try await events.first("peerAbsent", after: closed, timeout: 5) { $0["peer"] == "beta" }
        let again = try await events.first("peerPresent", after: closed, timeout: 10) { $0["peer"] == "beta" }
        print("presence: beta present again \(again.at - closed) after disconnect")
    }

    @Test func twoSubnetsWithoutMulticastPairByAddressContinueAndReconnect() async throws {
        let hosts = try TestHostSet(count: 2, routed: true)
        defer { hosts.tearDown() }
        let a = try DaemonHost(hosts, 1, name: "alpha"), b = try DaemonHost(hosts, 2, name: "beta")
        try await a.start()
        try await b.start()
        let addressB = try hosts.address(2)
        try await pair(a, b, at: addressB)
        try await waitUntil("each present to the other", timeout: 10) { try await bothPresent(a, b) }

        let published = try a.hawknotes(["publish", "--character", "Mira Thale", "--json"])
        let id = try #require(jsonField(published.output, "activity"))
        let continued = try b.ctl(["continue", "alpha", id])
        #expect(continued.status == 0, "\(continued.output)")
        #expect(continued.output.contains("Mira Thale"))

        // Either side restarts: they find each other again by themselves, through the link.
        for (restarted, other, name) in [(b, a, "beta"), (a, b, "alpha")] {
            restarted.stop()
            try await waitUntil("\(name) absent", timeout: 5) { try await !isPresent(other, name) }
            try await restarted.start(waitForAvahi: false)
            try await waitUntil("\(name) present again", timeout: 10) { try await isPresent(other, name) }
        }
        // After the restarts (activities live in memory, with their apps): a new one continues.
        let next = try a.hawknotes(["publish", "--character", "Greta Lind", "--json"])
        let nextID = try #require(jsonField(next.output, "activity"))
        let again = try b.ctl(["continue", "alpha", nextID])
        #expect(again.status == 0 && again.output.contains("Greta Lind"), "\(again.output)")
        // mDNS never crossed the router: every bit of this went over the link.
        #expect(try await a.peer("beta")?["listed"] == "false")
        #expect(try await b.peer("alpha")?["listed"] == "false")
        #expect(try await a.peer("beta")?.dictionaryValue?["foundBy"]?.arrayValue?.contains("mdns") == false)
    }

    @Test func aConfiguredAddressIsDialledAndShownAsStatic() async throws {
        let hosts = try TestHostSet(count: 2, routed: true)
        defer { hosts.tearDown() }
        let addressA = try hosts.address(1), addressB = try hosts.address(2)
        let a = try DaemonHost(hosts, 1, name: "alpha", config: DaemonHost.hawkNotesTypes + "peers: [\"\(addressB)\"]\n")
        let b = try DaemonHost(hosts, 2, name: "beta")
        try await a.start()
        try await b.start()
        // B pairs with A by A's address; A has B's address in its configuration.
        try await pair(b, a, at: addressA)
        try await waitUntil("both present", timeout: 10) { try await bothPresent(a, b) }
        try await waitUntil("alpha shows beta found at its configured address", timeout: 10) {
            try await a.peer("beta")?.dictionaryValue?["foundBy"]?.arrayValue?.contains("static") == true
        }
        a.stop()
        try await a.start(waitForAvahi: false)
        try await waitUntil("beta present to alpha again", timeout: 10) { try await bothPresent(a, b) }
        try await waitUntil("one session", timeout: 5) { try await a.peer("beta")?["sessions"] == "1" }
        #expect(try await a.peer("beta")?["address"]?.hasPrefix(addressB + ":") == true)
    }

    @Test func aPeerWhoseAddressChangesIsReachedAtTheNewOne() async throws {
        let hosts = try TestHostSet(count: 2)
        defer { hosts.tearDown() }
        let (a, b) = try await startPaired(hosts)
        try await waitUntil("both present", timeout: 10) { try await bothPresent(a, b) }
        let new = try hosts.readdress(2, to: 102)
        let took = try await waitUntil("alpha's session with beta goes to \(new)", timeout: 10) {
            guard let p = try await a.peer("beta") else { return false }
            return p["present"] == "true" && p["address"]?.hasPrefix(new + ":") == true && p["sessions"] == "1"
        }
        print("presence: reached at the new address after \(took) s")
        let published = try b.hawknotes(["publish", "--character", "Greta Lind", "--json"])
        let id = try #require(jsonField(published.output, "activity"))
        try await waitUntil("alpha lists beta's new activity", timeout: 5) {
            try a.ctl(["activities", "--peer", "beta", "--json"]).output.contains(id)
        }
        #expect(a.process?.isRunning == true && b.process?.isRunning == true)
    }

    @Test func aPulledCableIsFoundByPingsAndThePluggedOneByTheNetworkChange() async throws {
        let hosts = try TestHostSet(count: 2)
        defer { hosts.tearDown() }
        let (a, b) = try await startPaired(hosts)
        try await waitUntil("both present", timeout: 10) { try await bothPresent(a, b) }
        let events = try await EventLog.watch(a)
        // B's link goes down: no goodbye and no FIN reach A, and TCP alone would keep the
        // session for many minutes. A's pings stop being answered.
        let pulled = ContinuousClock.now
        try hosts.run(2, ["ip", "link", "set", "eth0", "down"])
        // Within the documented bound (11 s: a ping unanswered for 4 s, then 4 s for a fresh dial
        // to replace the session; docs/CONTROL.md), and a second for the loaded machine.
        let gone = try await events.first("peerAbsent", after: pulled, timeout: 15) { $0["peer"] == "beta" }
        #expect(gone.event.fields["reason"] == "ping-timeout")
        #expect(gone.at - pulled < .seconds(12), "absent \(gone.at - pulled) after the cable was pulled")
        #expect(try await a.peer("beta")?["sessions"] == "0", "the dead session is closed")
        // Plugged in again: B's kernel reports the link (rtnetlink) and B dials A at once.
        let plugged = ContinuousClock.now
        try hosts.run(2, ["ip", "link", "set", "eth0", "up"])
        let back = try await events.first("peerPresent", after: plugged, timeout: 10) { $0["peer"] == "beta" }
        print("presence: cable pulled -> absent after \(gone.at - pulled); plugged -> present after \(back.at - plugged)")
    }

    @Test func bothSidesDiallingAtOnceFiftyTimesKeepOneSession() async throws {
        let hosts = try TestHostSet(count: 2)
        defer { hosts.tearDown() }
        let (a, b) = try await startPaired(hosts)
        try await waitUntil("both present", timeout: 10) { try await bothPresent(a, b) }
        let clientA = try await HandoffClient.connect(socketPath: a.socket)
        let clientB = try await HandoffClient.connect(socketPath: b.socket)
        for round in 0..<50 {
            // Both drop the session and both dial again at the same moment (the daemons' own
            // dialers may join in: the outcome must be one session whatever the order).
            async let dropA = clientA.perform(DisconnectRequest(peer: "beta"))
            async let dropB = clientB.perform(DisconnectRequest(peer: "alpha"))
            _ = try await (dropA, dropB)
            async let dialA = clientA.perform(ConnectRequest(peer: "beta"))
            async let dialB = clientB.perform(ConnectRequest(peer: "alpha"))
            _ = try await (dialA, dialB)
            try await waitUntil("round \(round): one session, the same on both ends", timeout: 5) {
                guard let pa = try await a.peer("beta"), let pb = try await b.peer("alpha") else { return false }
                return pa["sessions"] == "1" && pb["sessions"] == "1" && pa["address"] != nil && pa["address"] == pb["localAddress"]
                    && pa["localAddress"] == pb["address"]
            }
        }
        await clientA.close()
        await clientB.close()
        // Each shows where it dials the other (its listening port), whichever opened the session:
        // the session's far end at the machine that did not dial is an ephemeral port.
        let pa = try #require(try await a.peer("beta")), pb = try #require(try await b.peer("alpha"))
        let endpointB = "\(try hosts.address(2)):7340", endpointA = "\(try hosts.address(1)):7340"
        #expect(pa["endpoint"] == endpointB, "\(pa)")
        #expect(pb["endpoint"] == endpointA, "\(pb)")
        let dialled = [pa, pb].filter { $0["address"] == $0["endpoint"] }
        #expect(dialled.count == 1, "\(pa) \(pb)")
        // The tie-break really ran: some rounds opened two sessions and both ends closed the same one.
        let duplicates = a.log.components(separatedBy: "retiring a duplicate session").count - 1
        print("presence: \(duplicates) duplicate sessions retired on alpha over 50 rounds")
        #expect(duplicates > 0)
    }

    @Test func anotherMachineAtTheOldAddressIsRefusedAndNothingIsStored() async throws {
        let hosts = try TestHostSet(count: 2)
        defer { hosts.tearDown() }
        let (a, b) = try await startPaired(hosts)
        try await waitUntil("both present", timeout: 10) { try await bothPresent(a, b) }
        let trustBefore = try a.ctl(["trust", "--json"]).output
        b.stop()
        try await waitUntil("beta absent", timeout: 5) { try await !isPresent(a, "beta") }
        // Another machine (its own key) takes beta's address and port.
        let c = try DaemonHost(hosts, 2, name: "gamma", instance: "-other")
        try await c.start()
        try await waitUntil("alpha dials beta's last-known address and meets gamma's key", timeout: 20) {
            a.log.contains("another machine answered at a paired peer's last-known address; refused")
        }
        #expect(try await !isPresent(a, "beta"))
        #expect(try a.ctl(["trust", "--json"]).output == trustBefore)
        #expect(try c.ctl(["trust", "--json"]).output.contains("beta") == false)
        #expect(try await c.peer("alpha")?["paired"] != "true")
    }
}

private func bothPresent(_ a: DaemonHost, _ b: DaemonHost) async throws -> Bool {
    let ab = try await isPresent(a, b.name)
    let ba = try await isPresent(b, a.name)
    return ab && ba
}
