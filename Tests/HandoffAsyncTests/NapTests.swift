import HandoffAsync
import NIOConcurrencyHelpers
import Testing

/// A service's pause between rounds: the loop's timer, ended by `end()` or cancellation.
@Suite(.timeLimit(.minutes(1))) struct NapTests {
    @Test func aNapLastsItsSpan() async {
        let nap = Nap()
        let start = ContinuousClock.now
        await nap.sleep(for: .milliseconds(100))
        let slept = ContinuousClock.now - start
        #expect(slept >= .milliseconds(100))
        #expect(slept < .seconds(5))
        #expect(!nap.hasEnded)
    }

    @Test func endWakesTheSleeperAndEveryLaterNap() async {
        let nap = Nap()
        let start = ContinuousClock.now
        let sleeper = Task { await nap.sleep(for: .seconds(30)) }
        // end() may come before the sleep has begun: then the sleep returns at once.
        nap.end()
        await sleeper.value
        #expect(ContinuousClock.now - start < .seconds(5))  // not the 30 s
        #expect(nap.hasEnded)
        let again = ContinuousClock.now
        await nap.sleep(for: .seconds(30))
        #expect(ContinuousClock.now - again < .seconds(5))
    }

    @Test func endWakesASleepUnderWay() async {
        let nap = Nap()
        let started = ContinuousClock.now
        let sleeper = Task { await nap.sleep(for: .seconds(30)) }
        // Ended from the loop 100 ms later: the sleep has begun by then, or begins ended.
        _ = Timeout.after(.milliseconds(100)) { nap.end() }
        await sleeper.value
        let slept = ContinuousClock.now - started
        #expect(slept >= .milliseconds(100))
        #expect(slept < .seconds(5))
    }

    @Test func cancellingTheSleeperEndsItsNap() async {
        let nap = Nap()
        let start = ContinuousClock.now
        let sleeper = Task { await nap.sleep(for: .seconds(30)) }
        sleeper.cancel()
        await sleeper.value
        #expect(ContinuousClock.now - start < .seconds(5))
        // Cancelling one sleeper ends its sleep, not the nap.
        #expect(!nap.hasEnded)
    }

    @Test func aTimerFromAnEarlierSleepDoesNotWakeALaterOne() async throws {
        let nap = Nap()
        // A first sleep, cut short once it is under way, leaves its 100 ms timer behind
        // (cancelled, or firing late): it must not end the sleep that follows.
        var caught = false
        // On a loaded machine the poll may not run while a 100 ms sleep lasts; CI once missed it
        // for 5 s. Such a sleep ended by its own timer, which tests nothing: start another one.
        for _ in 0..<20 where !caught {
            let done = NIOLockedValueBox(false)
            let first = Task {
                await nap.sleep(for: .milliseconds(100))
                done.withLockedValue { $0 = true }
            }
            let deadline = ContinuousClock.now + .seconds(5)
            while !nap.isSleeping, !done.withLockedValue({ $0 }), ContinuousClock.now < deadline { await Task.yield() }
            caught = nap.isSleeping
            first.cancel()
            await first.value
        }
        try #require(caught, "no first sleep was seen under way in 20 tries")
        #expect(!nap.isSleeping)
        let start = ContinuousClock.now
        await nap.sleep(for: .milliseconds(400))
        #expect(ContinuousClock.now - start >= .milliseconds(400))
    }

    @Test func aNudgeEndsTheSleepUnderWayAndNotTheNap() async throws {
        let nap = Nap()
        let start = ContinuousClock.now
        let sleeper = Task { await nap.sleep(for: .seconds(30)) }
        try await untilSleeping(nap)
        nap.nudge()
        await sleeper.value
        #expect(ContinuousClock.now - start < .seconds(5))  // not the 30 s
        #expect(!nap.hasEnded)
        // The nudge was used up by that sleep: the next one lasts its span.
        let again = ContinuousClock.now
        await nap.sleep(for: .milliseconds(200))
        #expect(ContinuousClock.now - again >= .milliseconds(200))
    }

    @Test func aNudgeWithNoSleepUnderWayEndsTheNextSleepOnly() async {
        // The round was at work when the news came: its next pause must not hide it for a delay.
        let nap = Nap()
        nap.nudge()
        nap.nudge()  // two nudges before a sleep are one
        let start = ContinuousClock.now
        await nap.sleep(for: .seconds(30))
        #expect(ContinuousClock.now - start < .seconds(5))
        let again = ContinuousClock.now
        await nap.sleep(for: .milliseconds(200))
        #expect(ContinuousClock.now - again >= .milliseconds(200))
        #expect(!nap.hasEnded)
    }

    /// Waits, with a deadline, until a sleep of `nap` is under way (its timer set).
    private func untilSleeping(_ nap: Nap) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while !nap.isSleeping, ContinuousClock.now < deadline { await Task.yield() }
        try #require(nap.isSleeping)
    }
}
