import Foundation
import HandoffCore
import HandoffProtocol
import Testing
@testable import HandoffDaemon

@Suite(.timeLimit(.minutes(1))) struct PeerRequestHandlerTests {
    static let type = try! ActivityType("org.hawknotes.draftNote")

    func handler(_ current: CurrentActivities, refresh: @escaping @Sendable (UserActivity) async -> UserActivity? = { _ in nil })
        -> PeerRequestHandler
    {
        PeerRequestHandler(device: "A", declaredTypes: [Self.type.rawValue], current: { current }, refresh: refresh)
    }

    func ask(_ h: PeerRequestHandler, _ m: PeerMessage) async throws -> PeerMessage? {
        await h.reply(to: try m.encoded())
    }

    @Test func helloListFetchPing() async throws {
        var c = CurrentActivities()
        let a = UserActivity(type: Self.type, title: "Note")
        let published = Date(timeIntervalSinceReferenceDate: 815_000_000.5)
        c.becomeCurrent(a, scene: nil, at: published)
        let h = handler(c)
        #expect(
            try await ask(h, .hello(id: 1, Hello(protocolVersion: 1, device: "B", types: [])))
                == .hello(id: 1, Hello(protocolVersion: 1, device: "A", types: [Self.type.rawValue])))
        #expect(try await ask(h, .list(id: 2)) == .activities(id: 2, items: [ActivitySummary(a, scene: nil, updated: published)]))
        #expect(try await ask(h, .fetch(id: 3, activityID: a.id)) == .activity(id: 3, activity: a))
        #expect(try await ask(h, .ping(id: 4)) == .pong(id: 4))
        let missing = try await ask(h, .fetch(id: 5, activityID: UUID()))
        guard case .error(5, "not-found", _)? = missing else {
            Issue.record("got \(String(describing: missing))")
            return
        }
    }

    @Test func anActivityForOneMachineIsNeitherListedNorFetchedByAnother() async throws {
        var c = CurrentActivities()
        let file = UserActivity(type: Self.type, title: "notes.txt")
        c.becomeCurrent(file, scene: nil, audience: "carol", at: Date())
        let h = handler(c)
        // Not in any list (nor the advert, which is made from the same entries).
        #expect(c.advertised(at: Date()).isEmpty)
        #expect(await h.reply(to: .list(id: 1), from: "carol") == .activities(id: 1, items: []))
        // Another paired machine that learned the id cannot fetch it; the machine it is for can.
        guard case .error(2, "not-found", _)? = await h.reply(to: .fetch(id: 2, activityID: file.id), from: "mallory") else {
            Issue.record("another machine fetched an activity that was not for it")
            return
        }
        #expect(await h.reply(to: .fetch(id: 3, activityID: file.id), from: "carol") == .activity(id: 3, activity: file))
    }

    @Test func badInputIsAnsweredNotFatal() async throws {
        let h = handler(CurrentActivities())
        let garbage = await h.reply(to: [1, 2, 3])
        guard case .error(nil, "undecodable", _)? = garbage else {
            Issue.record("got \(String(describing: garbage))")
            return
        }
        let oldVersion = try await ask(h, .hello(id: 1, Hello(protocolVersion: 9, device: "B", types: [])))
        guard case .error(1, "unsupported-version", _)? = oldVersion else {
            Issue.record("got \(String(describing: oldVersion))")
            return
        }
    }

    @Test func needsSaveIsRefreshedWithinTheBudget() async throws {
        var c = CurrentActivities()
        var a = UserActivity(type: Self.type)
        a.needsSave = true
        c.becomeCurrent(a, scene: nil, at: Date())
        var refreshed = a
        try refreshed.addUserInfoEntries(["draftText": "typed since"])
        let fresh = refreshed
        // A prompt app. The budget is wall-clock time on an event-loop timer, while the refresh
        // needs a Swift concurrency thread, which parallel suites may hold for a while: a roomy
        // budget here, so that this case tests the refresh, not the machine's load.
        var prompt = handler(c) { _ in fresh }
        prompt.refreshBudget = .seconds(20)
        #expect(try await ask(prompt, .fetch(id: 1, activityID: a.id)) == .activity(id: 1, activity: fresh))
        // An app that does not answer within 500 ms: the version we have goes out.
        let slow = handler(c) { _ in
            try? await Task.sleep(for: .seconds(5))
            return fresh
        }
        let start = ContinuousClock.now
        #expect(try await ask(slow, .fetch(id: 2, activityID: a.id)) == .activity(id: 2, activity: a))
        // Bound by the slow app's 5 s, not by the 500 ms budget: all suites starting at once have
        // stalled this machine for 3 s, and the claim is that the fetch does not wait for the app.
        #expect(ContinuousClock.now - start < .milliseconds(4_500))
        // An answer that is not newer is ignored.
        let stale = handler(c) { _ in UserActivity(type: Self.type) }
        #expect(try await ask(stale, .fetch(id: 3, activityID: a.id)) == .activity(id: 3, activity: a))
    }
}
