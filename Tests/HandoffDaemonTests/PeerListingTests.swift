import Foundation
import HandoffClient
import HandoffConfig
import HandoffContent
import HandoffCore
import HandoffDiscovery
import HandoffLink
import HandoffTestSupport
import Logging
import Testing
@testable import HandoffDaemon

private let library = try! Library(contentsOf: URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("config/library.json"))

/// A daemon on loopback with in-memory stores, discovered through a `FakeNetwork`, and its
/// control socket.
private struct LoopbackDaemon {
    let daemon: Daemon
    let discovery: FakeDiscovery
    let control: ControlServer
    let identity: IdentityKey
    let trust = InMemoryTrustStore()

    init(_ name: String, on network: FakeNetwork, avahiRunning: Bool = true) async throws {
        var c = HandoffConfiguration()
        c.deviceName = name
        c.peerPort = 0
        identity = IdentityKey()
        discovery = FakeDiscovery(network: network, hostName: name, address: "127.0.0.1", avahiRunning: avahiRunning)
        daemon = try Daemon(parts: DaemonParts(configuration: c, library: library, identity: identity, trustStore: trust,
                                               sceneStore: MemorySceneStore(), discovery: discovery, logger: Logger(label: "test.\(name)")))
        // A socket file of its own, removed by `stop()`: nothing left in the temporary directory.
        control = ControlServer(path: FileManager.default.temporaryDirectory.appendingPathComponent("pl-\(UUID().uuidString.prefix(8)).sock").path,
                                operations: daemon)
    }

    func start() async throws {
        try await daemon.start(listeningOn: "127.0.0.1")
        try await control.start()
    }

    func stop() async {
        await control.stop()
        await daemon.stop()
        discovery.shutdown()
    }

    func request(_ op: String, _ args: [String: PropertyListValue] = [:]) async throws -> PropertyListValue? {
        let client = try await HandoffClient.connect(socketPath: control.path)
        defer { Task { await client.close() } }
        return try await client.request(op, args)
    }
}

/// Two daemons that trust each other (as after pairing).
private func pairedDaemons(betaAdvertised: Bool) async throws -> (LoopbackDaemon, LoopbackDaemon) {
    let network = FakeNetwork()
    let a = try await LoopbackDaemon("alpha", on: network)
    let b = try await LoopbackDaemon("beta", on: network, avahiRunning: betaAdvertised)
    a.trust.pin(TrustedPeer(identity: b.identity.identity, name: "beta", pairedAt: Date()))
    b.trust.pin(TrustedPeer(identity: a.identity.identity, name: "alpha", pairedAt: Date()))
    try await a.start()
    try await b.start()
    return (a, b)
}

/// A request to a paired peer whose advert is not resolved yet waits for it, briefly: right after
/// pairing or a start, mDNS has usually not resolved the other side yet.
@Suite(.serialized, .timeLimit(.minutes(1))) struct PeerListingTests {
    @Test func aPairedPeerListedDuringTheGraceIsReached() async throws {
        let (a, b) = try await pairedDaemons(betaAdvertised: false)
        defer { Task { await a.stop(); await b.stop() } }
        // Far beyond the 10 s the test allows: only the discovery event can end the wait in time.
        await a.daemon.setListingGrace(.seconds(600))
        #expect(try await a.request("peers")?.arrayValue?.first { $0.dictionaryValue?["name"] == "beta" }?
            .dictionaryValue?["listed"] == .bool(false))

        let listing = Task { try await a.request("activities", ["peer": "beta"]) }
        let waitingForBeta = WakeReason.listed(fingerprint: b.identity.identity.fingerprint)
        try await waitUntil("alpha waits for beta's advert", timeout: 5) { await a.daemon.wakeups.count(waitingForBeta) == 1 }
        b.discovery.setAvahiRunning(true)
        #expect(await Timeout.race(.seconds(10)) { try? await listing.value } == .array([]))
        #expect(await a.daemon.wakeups.count(waitingForBeta) == 0)
    }

    @Test func aPairedPeerNeverListedFailsAfterTheGraceSayingSo() async throws {
        let (a, b) = try await pairedDaemons(betaAdvertised: false)
        defer { Task { await a.stop(); await b.stop() } }
        await a.daemon.setListingGrace(.milliseconds(200))
        let started = ContinuousClock.now
        let error = await #expect(throws: ClientError.self) { try await a.request("activities", ["peer": "beta"]) }
        #expect(ContinuousClock.now - started >= .milliseconds(200))
        guard case .refused(let code, let message) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(code == "peer-unreachable")
        #expect(message.contains("not listed on the network"), "\(message)")
        #expect(await a.daemon.wakeups.count(.listed(fingerprint: b.identity.identity.fingerprint)) == 0)
    }

    @Test func aListedPeerIsReachedWithoutWaiting() async throws {
        let (a, b) = try await pairedDaemons(betaAdvertised: true)
        defer { Task { await a.stop(); await b.stop() } }
        try await waitUntil("alpha lists beta", timeout: 5) { await a.daemon.discovered["beta"] != nil }
        // Far beyond the 10 s the test allows: a request that waited at all would fail it.
        await a.daemon.setListingGrace(.seconds(600))
        await b.daemon.setListingGrace(.seconds(600))
        try await waitUntil("beta lists alpha", timeout: 5) { await b.daemon.discovered["alpha"] != nil }
        #expect(await Timeout.race(.seconds(10)) { try? await a.request("activities", ["peer": "beta"]) } == .array([]))
        #expect(await Timeout.race(.seconds(10)) { try? await b.request("activities", ["peer": "alpha"]) } == .array([]))
    }
}
