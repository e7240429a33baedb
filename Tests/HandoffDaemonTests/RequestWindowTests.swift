import Foundation
import HandoffAsync
import Testing
@testable import HandoffDaemon

/// At most 8 of our requests await answers on a session; the rest wait for a slot
/// within their own deadline, and a slot given back goes to the oldest waiting.
@Suite(.timeLimit(.minutes(1))) struct RequestWindowTests {
    let session = ObjectIdentifier(NSObject.self), other = ObjectIdentifier(NSString.self)

    @Test func pastEightARequestWaitsForASlotAndGetsTheOneGivenBack() async {
        var w = RequestWindow()
        for _ in 0..<RequestWindow.size { #expect(w.take(session, deadline: .seconds(5)) == nil) }
        // Another session has slots of its own.
        #expect(w.take(other, deadline: .seconds(5)) == nil)
        let first = w.take(session, deadline: .seconds(5)), second = w.take(session, deadline: .seconds(5))
        #expect(first != nil && second != nil)
        w.give(session)
        if let first { #expect(await w.wait(first).value != nil) }
        w.give(session)
        if let second { #expect(await w.wait(second).value != nil) }
        // Every slot given back: eight are free again.
        for _ in 0..<RequestWindow.size { w.give(session) }
        for _ in 0..<RequestWindow.size { #expect(w.take(session, deadline: .seconds(5)) == nil) }
    }

    @Test func aRequestWaitingForASlotFailsAtItsDeadline() async throws {
        var w = RequestWindow()
        for _ in 0..<RequestWindow.size { _ = w.take(session, deadline: .seconds(5)) }
        let ticket = w.take(session, deadline: .milliseconds(50))
        let waiting = try #require(ticket)
        guard case .timedOut = await w.wait(waiting) else {
            Issue.record("a request waiting for a slot past its deadline must time out")
            return
        }
        // Its slot was never taken: the next one given back stays free for the next request.
        w.give(session)
        #expect(w.take(session, deadline: .seconds(5)) == nil)
    }
}
