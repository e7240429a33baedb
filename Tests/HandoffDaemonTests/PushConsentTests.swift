import Foundation
import HandoffCore
import HandoffDiscovery
import HandoffLink
import HandoffProtocol
import HandoffTestSupport
import HawkNotes
import Testing
@testable import HandoffDaemon

/// A push is dispatched here without asking (a peer opened 5 pages a second in the
/// person's browser). `refuse_pushes_from` is the person's choice per paired machine.
@Suite(.serialized, .timeLimit(.minutes(1))) struct PushConsentTests {
    func push(to a: LoopbackDaemon, from rogue: LoopNode) async throws -> PeerMessage? {
        let port = await a.daemon.peers.port
        let session = try await rogue.endpoint.connect(host: "127.0.0.1", port: port, expecting: a.identity.identity)
        var activity = UserActivity(type: HawkNotes.bookDetail, title: "The Burning Swift")
        try activity.addUserInfoEntries(["bookID": "E34747BE-30DC-4DD8-B191-BC6C56B9B9A3"])
        try await session.send(PeerMessage.push(id: 42, activity: activity).encoded())
        let it = session.messages.makeAsyncIterator()
        while let bytes = await it.next() {
            let m = try PeerMessage(decoding: bytes)
            if case .outcome(42, _) = m { return m }
        }
        return nil
    }

    @Test func pushesFromARefusedPeerAreRefused() async throws {
        let a = try await LoopbackDaemon("alpha", on: FakeNetwork()) { $0.refusePushesFrom = ["rogue"] }
        try await withStopping(a) {
            let r = try await BoundedSessionTests.rogue(pairedWith: a)
            guard case .outcome(_, .failed(let code, let message))? = try await push(to: a, from: r) else {
                Issue.record("the push was not refused")
                return
            }
            #expect(code == "push-refused" && message.contains("refuse_pushes_from"))
            #expect(try #require(try await a.request("scenes")?.arrayValue).isEmpty, "nothing was dispatched")
        }
    }

    @Test func pushesFromOthersStillArrive() async throws {
        let a = try await LoopbackDaemon("alpha", on: FakeNetwork()) { $0.refusePushesFrom = ["someone-else"] }
        try await withStopping(a) {
            let r = try await BoundedSessionTests.rogue(pairedWith: a)
            #expect(try await push(to: a, from: r) == .outcome(id: 42, outcome: .continued))
        }
    }
}
