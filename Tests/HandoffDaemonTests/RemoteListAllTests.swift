import Foundation
import HandoffClient
import HandoffControl
import HandoffCore
import HandoffDiscovery
import HandoffLink
import HandoffProtocol
import HandoffTestSupport
import HawkNotes
import NIOConcurrencyHelpers
import Testing
@testable import HandoffDaemon

/// `activities --remote` (and every app's remote listing): the paired peers are asked side by
/// side, so one that does not answer holds up no other. Over real sockets on loopback, with
/// paired peers that are link endpoints of the test's own.
@Suite(.serialized, .timeLimit(.minutes(1))) struct RemoteListAllTests {
    /// A paired machine that answers alpha's list requests with one activity, when `answer` lets it.
    struct ListingPeer {
        let node: LoopNode
        let session: LinkSession
        let activity = UUID()
        let answering: Task<Void, Never>

        init(
            _ name: String, pairedWith a: LoopbackDaemon, asked: NIOLockedValueBox<Set<String>>,
            answer: @escaping @Sendable () async -> Void
        ) async throws {
            let store = InMemoryTrustStore()
            let endpoint = LinkEndpoint(identity: IdentityKey(), name: name, trustStore: store)
            node = LoopNode(endpoint: endpoint, store: store, port: try await endpoint.listen(host: "127.0.0.1", port: 0))
            a.trust.pin(TrustedPeer(identity: node.identity, name: name, pairedAt: Date()))
            store.pin(TrustedPeer(identity: a.identity.identity, name: a.daemon.configuration.deviceName, pairedAt: Date()))
            let session = try await endpoint.connect(host: "127.0.0.1", port: await a.daemon.peers.port, expecting: a.identity.identity)
            self.session = session
            let item = ActivitySummary(activityID: activity, type: HawkNotes.bookDetail.rawValue, title: "\(name)'s", scene: nil, version: 1)
            let key = UUID().uuidString
            answering = Task {
                for await bytes in session.messages {
                    guard case .list(let id)? = try? PeerMessage(decoding: bytes) else { continue }
                    asked.withLockedValue { _ = $0.insert(key) }
                    await answer()
                    try? await session.send(PeerMessage.activities(id: id, items: [item]).encoded())
                }
            }
            let id = node.identity.id
            try await waitUntil("alpha adopted \(name)'s session", timeout: 5) { await a.daemon.peers.links.current(id) != nil }
        }

        func stop() async {
            answering.cancel()
            await session.close()
            await node.endpoint.shutdown()
        }
    }

    /// Without the search index (as handoffd with `desktop.search: false`), which reads each peer's activities as it comes: the listing
    /// would be answered from what that read held, and nothing would ask the peers.
    static func alpha() async throws -> LoopbackDaemon {
        try await LoopbackDaemon("alpha", on: FakeNetwork()) { $0.desktop.search = false }
    }

    static func remoteListing(_ a: LoopbackDaemon) async throws -> [ActivityInfo] {
        let client = try await HandoffClient.connect(socketPath: a.control.path)
        defer { Task { await client.close() } }
        return try await client.perform(ActivitiesRequest(remote: true)).items
    }

    /// alpha (search off) and two paired peers named `names`, each answering lists when `answer`
    /// (given the set of peers asked so far) lets it; the peers stop after `body`, alpha too.
    static func withTwoPeers(
        _ names: (String, String), answer: @escaping @Sendable (NIOLockedValueBox<Set<String>>) async -> Void = { _ in },
        _ body: (LoopbackDaemon, ListingPeer, ListingPeer) async throws -> Void
    ) async throws {
        let a = try await Self.alpha()
        try await withStopping(a) {
            let asked = NIOLockedValueBox<Set<String>>([])
            let b = try await ListingPeer(names.0, pairedWith: a, asked: asked) { await answer(asked) }
            let c = try await ListingPeer(names.1, pairedWith: a, asked: asked) { await answer(asked) }
            do { try await body(a, b, c) } catch {
                await b.stop()
                await c.stop()
                throw error
            }
            await b.stop()
            await c.stop()
        }
    }

    /// Each of two peers answers only once both were asked. Asked one after another, the first
    /// would wait for a question that comes only after alpha gave up on it (5 s) and be left out.
    @Test func thePeersAreAskedSideBySide() async throws {
        // Longer than alpha waits for an answer, so that one after another cannot pass.
        let bothAsked: @Sendable (NIOLockedValueBox<Set<String>>) async -> Void = { asked in
            _ = try? await waitUntil("both peers were asked", timeout: 8) { asked.withLockedValue { $0.count } == 2 }
        }
        try await Self.withTwoPeers(("beta", "gamma"), answer: bothAsked) { a, b, c in
            let listed = try await Self.remoteListing(a)
            #expect(Set(listed.map(\.activity)) == [b.activity, c.activity], "listed: \(listed)")
            #expect(Set(listed.compactMap(\.peer)) == ["beta", "gamma"])
        }
    }

    /// Two paired machines under one name (paired before names were made unique): both are
    /// listed. Before, each was looked up again by its name, found ambiguous, and left out.
    @Test func twoPeersUnderOneNameAreBothListed() async throws {
        try await Self.withTwoPeers(("twin", "twin")) { a, b, c in
            let listed = try await Self.remoteListing(a)
            #expect(Set(listed.map(\.activity)) == [b.activity, c.activity], "listed: \(listed)")
        }
    }

    /// `handoffctl activities --remote` as a person reads it: a machine named in Japanese takes
    /// two columns a character, and the table's columns stay aligned (they were padded in
    /// characters, and slid apart by the name's width).
    @Test func theTableStaysAlignedForNamesInOtherScripts() async throws {
        try await Self.withTwoPeers(("東京のノート", "beta")) { a, b, c in
            let argv = [BuiltProducts.path("handoffctl"), "activities", "--remote", "--socket", a.control.path]
            let (status, output) = try await runCommandOffPool(argv)
            #expect(status == 0, "\(output)")
            let rows = output.split(separator: "\n").filter { !$0.isEmpty }
            #expect(rows.count == 3, "\(output)")
            // Where the ACTIVITY column starts, in columns, on each row.
            let starts = rows.map { row in
                row.firstRange(of: "ACTIVITY").map { row[..<$0.lowerBound].terminalColumns }
                    ?? [b.activity, c.activity].lazy.compactMap { row.firstRange(of: $0.uuidString)?.lowerBound }.first.map {
                        row[..<$0].terminalColumns
                    }
            }
            #expect(Set(starts).count == 1 && starts.allSatisfy { $0 != nil }, "\(output)")
        }
    }
}
