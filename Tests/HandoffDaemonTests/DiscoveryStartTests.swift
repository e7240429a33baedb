import Foundation
import HandoffCore
import HandoffDiscovery
import NIOCore
import NIOPosix
import Testing

/// Discovery (the Avahi client) starts once the daemon's first dials have ended, or after 100 ms
/// (Peers.run: a small machine's restarted daemon is present to its peers sooner).
@Suite struct DiscoveryStartTests {
    @Test func withNothingToDialDiscoveryStartsAtOnce() async throws {
        let a = try await LoopbackDaemon("alpha", on: FakeNetwork())
        try await withStopping(a) {
            #expect(await until(.seconds(5)) { a.discovery.startedAt != nil }, "discovery was never started")
        }
    }

    /// A configured peer address that accepts TCP and never answers the handshake: the dial lasts
    /// until the handshake's 10 s timeout, and discovery does not wait for it past its bound.
    @Test func aDialThatHangsHoldsDiscoveryNoLongerThanItsBound() async throws {
        let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in channel.eventLoop.makeSucceededVoidFuture() }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(silent.localAddress?.port)
        let before = ContinuousClock.now
        let a = try await LoopbackDaemon("alpha", on: FakeNetwork()) { c in
            c.staticPeers = [PeerEndpoint(host: "127.0.0.1", port: port)]
        }
        try await withStopping(a) {
            #expect(await until(.seconds(5)) { a.discovery.startedAt != nil }, "discovery waited for the hanging dial")
            // Not before the bound: a timer does not fire early, and the dial had not ended.
            let waited = try #require(a.discovery.startedAt) - before
            #expect(waited >= .milliseconds(100), "discovery started after \(waited), before the dial ended or its bound")
        }
        try await silent.close()
    }

    private func until(_ limit: Duration, _ condition: () -> Bool) async -> Bool {
        let end = ContinuousClock.now + limit
        while !condition() {
            guard ContinuousClock.now < end else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }
}
