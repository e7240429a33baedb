import Foundation
import Testing

@testable import HandoffDaemon

/// Of several windows registered as live handlers, the one showing the activity's
/// target content is offered it first, then the frontmost (changed last).
@Suite struct LiveHandlerOrderTests {
    let a = UUID(), b = UUID(), c = UUID()
    let t0 = Date(timeIntervalSince1970: 1_000_000)

    /// Three windows and one handler without a window, in registration order.
    var scenes: [UUID?] { [nil, a, b, c] }

    @Test func theWindowShowingTheTargetFirstThenTheFrontmost() {
        let facts = [
            a: LiveSceneFacts(content: "b|X", updated: t0),
            b: LiveSceneFacts(content: "b|Y::c|Z", updated: t0 + 5),
            c: LiveSceneFacts(content: "b|Y", updated: t0 + 10)
        ]
        let order = { (target: String?) in LiveHandlerRegistry.order(scenes: scenes, target: target, facts: facts) }
        #expect(order("b|Y::c|Z") == [2, 3, 1, 0])
        #expect(order(nil) == [3, 2, 1, 0], "no target: the window changed last first")
        #expect(order("b|nothing") == [3, 2, 1, 0])
    }

    @Test func withoutScenesTheRegistrationOrder() {
        #expect(LiveHandlerRegistry.order(scenes: scenes, target: "b|X", facts: [:]) == [0, 1, 2, 3])
    }
}
