import Foundation
import Testing
@testable import HandoffDaemon

private actor Flag {
    private(set) var isSet = false
    func set() { isSet = true }
}

@Suite(.timeLimit(.minutes(1))) struct TimeoutTests {
    @Test func anOperationThatFinishesInTimeGivesItsValue() async {
        let value = await Timeout.race(.seconds(5)) { 42 }
        #expect(value == 42)
    }

    @Test func anOperationPastTheLimitIsCancelledAndGivesNil() async {
        let sawCancel = Flag()
        let start = ContinuousClock.now
        let value: Int? = await Timeout.race(.milliseconds(100)) {
            do { try await Task.sleep(for: .seconds(10)) } catch { await sawCancel.set() }
            return 1
        }
        #expect(value == nil)
        #expect(ContinuousClock.now - start < .seconds(5))
        // The operation is cancelled when the limit passes; wait for it to notice, with a deadline.
        let deadline = ContinuousClock.now + .seconds(5)
        while await !sawCancel.isSet, ContinuousClock.now < deadline { await Task.yield() }
        #expect(await sawCancel.isSet)
    }

    @Test func cancellingTheCallerCancelsTheOperation() async {
        let sawCancel = Flag()
        let caller = Task {
            await Timeout.race(.seconds(30)) { () -> Int? in
                do { try await Task.sleep(for: .seconds(30)) } catch { await sawCancel.set() }
                return 1
            }
        }
        let start = ContinuousClock.now
        caller.cancel()
        #expect(await caller.value == nil)
        #expect(ContinuousClock.now - start < .seconds(5))  // not the 30 s limit
        let deadline = ContinuousClock.now + .seconds(5)
        while await !sawCancel.isSet, ContinuousClock.now < deadline { await Task.yield() }
        #expect(await sawCancel.isSet)
    }

    @Test func aCancelledTimerNeverFires() async throws {
        let fired = Flag()
        let timer = Timeout.after(.milliseconds(50)) { Task { await fired.set() } }
        timer.cancel()
        // A second timer, later than the first, shows the first one's time has passed.
        await withCheckedContinuation { c in _ = Timeout.after(.milliseconds(200)) { c.resume() } }
        #expect(await !fired.isSet)
    }

    @Test func anUnansweredQuestionEndsWithNilAfterItsBudget() async {
        let waiters = AnswerWaiters<Bool>()
        let owner = ObjectIdentifier(TimeoutTests.self)
        let start = ContinuousClock.now
        let answer = await waiters.ask(owner: owner, budget: .milliseconds(100)) { _ in }
        #expect(answer == nil)
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test func anAnsweredQuestionGivesTheAnswer() async {
        let waiters = AnswerWaiters<Bool>()
        let owner = ObjectIdentifier(TimeoutTests.self)
        let answer = await waiters.ask(owner: owner, budget: .seconds(10)) { token in
            Task { _ = await waiters.answer(token, with: true) }
        }
        #expect(answer == true)
        // A late answer to a question that is over is refused.
        #expect(await waiters.answer("no-such-token", with: false) == false)
    }
}
