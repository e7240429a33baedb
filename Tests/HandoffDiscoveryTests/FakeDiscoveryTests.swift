import Testing
@testable import HandoffDiscovery

/// Collects a fake's events so that tests can wait for one with a deadline.
actor EventLog {
    private(set) var events: [DiscoveryEvent] = []
    func append(_ e: DiscoveryEvent) { events.append(e) }

    static func follow(_ d: FakeDiscovery) -> EventLog {
        let log = EventLog()
        Task { for await e in d.events { await log.append(e) } }
        return log
    }

    func waitFor(_ match: @Sendable (DiscoveryEvent) -> Bool, within seconds: Double = 2) async -> DiscoveryEvent? {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if let e = events.first(where: match) { return e }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return events.first(where: match)
    }
}

@Suite struct FakeDiscoveryTests {
    @Test func peersSeeEachOtherAndTXTUpdates() async throws {
        let net = FakeNetwork()
        let a = FakeDiscovery(network: net, hostName: "a"), b = FakeDiscovery(network: net, hostName: "b")
        let logB = EventLog.follow(b)
        try a.publish(ServiceAdvert(instanceName: "alpha", port: 7000, txt: try TXTRecord(["fp": "1"])))
        let appeared = await logB.waitFor { if case .peerAppeared(let p) = $0 { p.name == "alpha" } else { false } }
        #expect(appeared != nil)
        try a.updateTXT(try TXTRecord(["fp": "1", "tok": "x"]))
        let changed = await logB.waitFor { if case .peerChanged(let p) = $0 { p.txt["tok"] == "x" } else { false } }
        #expect(changed != nil)
        #expect(b.peers.map(\.name) == ["alpha"] && a.peers.isEmpty)
        a.shutdown()
        #expect(await logB.waitFor { $0 == .peerRemoved(name: "alpha") } != nil)
        b.shutdown()
    }

    @Test func collisionGivesDistinctNames() async throws {
        let net = FakeNetwork()
        let a = FakeDiscovery(network: net, hostName: "a"), b = FakeDiscovery(network: net, hostName: "b")
        let logB = EventLog.follow(b)
        try a.publish(ServiceAdvert(instanceName: "same", port: 1))
        try b.publish(ServiceAdvert(instanceName: "same", port: 2))
        #expect(await logB.waitFor { $0 == .published(name: "same #2") } != nil)
        #expect(a.nameInUse == "same" && b.nameInUse == "same #2")
        #expect(a.peers.map(\.name) == ["same #2"] && b.peers.map(\.name) == ["same"])
    }

    @Test func avahiRestartRepublishes() async throws {
        let net = FakeNetwork()
        let a = FakeDiscovery(network: net, hostName: "a"), b = FakeDiscovery(network: net, hostName: "b")
        let logB = EventLog.follow(b)
        try a.publish(ServiceAdvert(instanceName: "alpha", port: 1))
        a.setAvahiRunning(false)
        #expect(await logB.waitFor { $0 == .peerRemoved(name: "alpha") } != nil)
        #expect(b.peers.isEmpty)
        a.setAvahiRunning(true)
        #expect(b.peers.map(\.name) == ["alpha"])
    }

    @Test func shutdownStops() throws {
        let a = FakeDiscovery(network: FakeNetwork(), hostName: "a")
        a.shutdown()
        #expect(throws: DiscoveryError.stopped) { try a.publish(ServiceAdvert(instanceName: "x", port: 1)) }
    }
}
