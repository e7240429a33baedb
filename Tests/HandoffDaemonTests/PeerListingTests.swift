import Foundation
import HandoffAdvert
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
import HandoffAsync
import ServiceLifecycle

/// Two daemons that trust each other (as after pairing).
func pairedDaemons(betaAdvertised: Bool) async throws -> (LoopbackDaemon, LoopbackDaemon) {
    let network = FakeNetwork()
    let a = try await LoopbackDaemon("alpha", on: network)
    let b = try await LoopbackDaemon("beta", on: network, avahiRunning: betaAdvertised)
    // As after pairing and a first session: each holds the other's advertising key.
    a.trust.pin(TrustedPeer(identity: b.identity.identity, name: "beta", pairedAt: Date(), advertisingKey: b.trust.ownAdvertisingKey()))
    b.trust.pin(TrustedPeer(identity: a.identity.identity, name: "alpha", pairedAt: Date(), advertisingKey: a.trust.ownAdvertisingKey()))
    return (a, b)
}

/// A request to a paired peer whose advert is not resolved yet waits for it, briefly: right after
/// pairing or a start, mDNS has usually not resolved the other side yet.
@Suite(.serialized, .timeLimit(.minutes(1))) struct PeerListingTests {
    @Test func aPairedPeerListedDuringTheGraceIsReached() async throws {
        let (a, b) = try await pairedDaemons(betaAdvertised: false)
        try await withStopping(a, b) {
            // Far beyond the 10 s the test allows: only the discovery event can end the wait in time.
            await a.daemon.peers.setListingGrace(.seconds(600))
            #expect(
                try await a.request("peers")?.arrayValue?.first { $0.dictionaryValue?["name"] == "beta" }?
                    .dictionaryValue?["listed"] == .bool(false))

            let listing = Task { try await a.request("activities", ["peer": "beta"]) }
            let waitingForBeta = PeerWait.listed(peerID: b.identity.identity.id)
            try await waitUntil("alpha waits for beta's advert", timeout: 5) { await a.daemon.peers.waiting(for: waitingForBeta) == 1 }
            b.discovery.setAvahiRunning(true)
            #expect(await Timeout.race(.seconds(10)) { try? await listing.value } == .array([]))
            #expect(await a.daemon.peers.waiting(for: waitingForBeta) == 0)
        }
    }

    @Test func aPairedPeerNeverListedFailsAfterTheGraceSayingSo() async throws {
        let (a, b) = try await pairedDaemons(betaAdvertised: false)
        try await withStopping(a, b) {
            await a.daemon.peers.setListingGrace(.milliseconds(200))
            let started = ContinuousClock.now
            let error = await #expect(throws: ClientError.self) { try await a.request("activities", ["peer": "beta"]) }
            #expect(ContinuousClock.now - started >= .milliseconds(200))
            guard case .refused(let code, let message) = error else {
                Issue.record("\(String(describing: error))")
                return
            }
            #expect(code == "peer-unreachable")
            #expect(message.contains("not listed on the network"), "\(message)")
            // Named as the person knows it, not by its key's fingerprint.
            #expect(message.hasPrefix("cannot reach beta: "), "\(message)")
            #expect(await a.daemon.peers.waiting(for: .listed(peerID: b.identity.identity.id)) == 0)
        }
    }

    @Test func aListedPeerIsReachedWithoutWaiting() async throws {
        let (a, b) = try await pairedDaemons(betaAdvertised: true)
        try await withStopping(a, b) {
            try await waitUntil("alpha lists beta", timeout: 5) { await a.daemon.peers.discovered("beta") != nil }
            // Far beyond the 10 s the test allows: a request that waited at all would fail it.
            await a.daemon.peers.setListingGrace(.seconds(600))
            await b.daemon.peers.setListingGrace(.seconds(600))
            try await waitUntil("beta lists alpha", timeout: 5) { await b.daemon.peers.discovered("alpha") != nil }
            #expect(await Timeout.race(.seconds(10)) { try? await a.request("activities", ["peer": "beta"]) } == .array([]))
            #expect(await Timeout.race(.seconds(10)) { try? await b.request("activities", ["peer": "alpha"]) } == .array([]))
        }
    }
}
