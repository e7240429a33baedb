import Foundation
import HandoffClient
import HandoffCore
import HandoffDiscovery
import HandoffTestSupport
import Testing
@testable import HandoffDaemon

/// Two `pair --accept` at once. When the first gets its pairing, the second
/// must go on waiting, with the window open, for the next machine; it once ended at that moment
/// (its wake-up was shared), and the window the first pairing closed stayed closed.
@Suite(.serialized, .timeLimit(.minutes(1))) struct PairingAcceptTests {
    @Test func aSecondAcceptWaitsOnAfterTheFirstPaired() async throws {
        let network = FakeNetwork()
        let a = try await LoopbackDaemon("alpha", on: network)
        let b = try await LoopbackDaemon("beta", on: network)
        let c = try await LoopbackDaemon("gamma", on: network)
        try await withStopping(a, b, c) {
            let first = try await HandoffClient.connect(socketPath: a.control.path)
            let second = try await HandoffClient.connect(socketPath: a.control.path)

            let accept1 = Task { try await first.request("pair-accept", ["timeout": 30]) }
            try await waitUntil("the first accept waits", timeout: 5) { await a.daemon.pairing.waitingAccepts == 1 }
            let accept2 = Task { try await second.request("pair-accept", ["timeout": 30]) }
            try await waitUntil("the second accept waits", timeout: 5) { await a.daemon.pairing.waitingAccepts == 2 }

            // beta pairs: the oldest accept gets it.
            try await pair(b, with: a, accepted: accept1, on: first)
            #expect(await a.daemon.pairing.waitingAccepts == 1)
            // gamma pairs next: the second accept, still waiting, gets it.
            try await pair(c, with: a, accepted: accept2, on: second)
            #expect(await a.daemon.pairing.waitingAccepts == 0)
            let trusted = try #require(try await a.request("trust")?.arrayValue).compactMap { $0.dictionaryValue?["name"]?.stringValue }
            #expect(Set(trusted) == ["beta", "gamma"])
            // (On a failure the daemons' stop ends these connections.)
            await first.close()
            await second.close()
        }
    }

    /// `initiator` starts pairing with `responder`, whose waiting accept returns the same code;
    /// both confirm.
    private func pair(
        _ initiator: LoopbackDaemon, with responder: LoopbackDaemon,
        accepted: Task<PropertyListValue?, Error>, on acceptClient: HandoffClient
    ) async throws {
        try await waitUntil("the initiator lists the responder", timeout: 5) {
            await initiator.daemon.peers.discovered(responder.daemon.configuration.deviceName) != nil
        }
        let client = try await HandoffClient.connect(socketPath: initiator.control.path)
        let started = try #require(try await client.request("pair", ["peer": .string(responder.daemon.configuration.deviceName)]))
        let accepting = try #require(try await accepted.value)
        #expect(started.dictionaryValue?["code"] == accepting.dictionaryValue?["code"])
        async let initiatorDone = client.request("pair-confirm", ["pairing": try #require(started.dictionaryValue?["pairing"]), "accept": true])
        let responderDone = try await acceptClient.request(
            "pair-confirm", ["pairing": try #require(accepting.dictionaryValue?["pairing"]), "accept": true])
        #expect(responderDone?.dictionaryValue?["peer"] == .string(initiator.daemon.configuration.deviceName))
        _ = try await initiatorDone
        await client.close()
    }
}
