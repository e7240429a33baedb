import Foundation
import Testing
@testable import HandoffDaemon

/// Which of two sessions both ends keep, and when the dialer tries again.
@Suite struct SessionChoiceTests {
    typealias C = SessionTable.Candidate
    static let t0 = ContinuousClock.now

    @Test func aRaceKeepsTheSessionOpenedByTheLowerKeyOnBothEnds() {
        // A (lower key) and B dial each other at once. A's view: old = A's dial, new = B's dial.
        let onA = SessionTable.choose(
            old: C(initiatedLocally: true, openedAt: Self.t0), new: C(initiatedLocally: false, openedAt: Self.t0 + .milliseconds(3)),
            localKeyIsLower: true)
        #expect(onA == .old)
        // B saw them in the other order: old = B's dial, new = A's dial. Same session kept: A's.
        let onB = SessionTable.choose(
            old: C(initiatedLocally: true, openedAt: Self.t0), new: C(initiatedLocally: false, openedAt: Self.t0 + .milliseconds(1)),
            localKeyIsLower: false)
        #expect(onB == .new)
        // Or in A's order on B too.
        let onB2 = SessionTable.choose(
            old: C(initiatedLocally: false, openedAt: Self.t0), new: C(initiatedLocally: true, openedAt: Self.t0 + .milliseconds(1)),
            localKeyIsLower: false)
        #expect(onB2 == .old)
    }

    @Test func outsideTheRaceWindowTheNewerReplacesTheOlder() {
        let later = Self.t0 + SessionTable.raceWindow + .milliseconds(1)
        for lower in [true, false] {
            #expect(
                SessionTable.choose(
                    old: C(initiatedLocally: true, openedAt: Self.t0), new: C(initiatedLocally: false, openedAt: later), localKeyIsLower: lower)
                    == .new)
            #expect(
                SessionTable.choose(
                    old: C(initiatedLocally: false, openedAt: Self.t0), new: C(initiatedLocally: true, openedAt: later), localKeyIsLower: lower)
                    == .new)
        }
    }

    @Test func theSameWayRoundTheDiallerDecides() {
        #expect(
            SessionTable.choose(
                old: C(initiatedLocally: true, openedAt: Self.t0), new: C(initiatedLocally: true, openedAt: Self.t0), localKeyIsLower: true) == .new)
        #expect(
            SessionTable.choose(
                old: C(initiatedLocally: false, openedAt: Self.t0), new: C(initiatedLocally: false, openedAt: Self.t0), localKeyIsLower: true)
                == .both)
        // The peer dialled again long after: its old session is stale.
        let later = Self.t0 + SessionTable.raceWindow
        #expect(
            SessionTable.choose(
                old: C(initiatedLocally: false, openedAt: Self.t0), new: C(initiatedLocally: false, openedAt: later), localKeyIsLower: true) == .new)
    }
}

@Suite struct PeerDialerTests {
    static let t0: ReachTime = 1000

    @Test func dueAtOnceThenBackedOffBoundedAndResetByNews() {
        var d = PeerDialer()
        #expect(d.due(["b"], at: Self.t0) == ["b"])
        d.begin("b", attempts: 2)
        #expect(d.due(["b"], at: Self.t0).isEmpty, "a round is in flight")
        let r49 = d.attempted("b", ok: false, at: Self.t0, jitter: 0.5)
        #expect(!r49)
        #expect(d.due(["b"], at: Self.t0).isEmpty, "one attempt is still out")
        let r53 = d.attempted("b", ok: false, at: Self.t0, jitter: 0.5)
        #expect(!r53)
        #expect(d.due(["b"], at: Self.t0 + 0.9).isEmpty)
        #expect(d.due(["b"], at: Self.t0 + 1.0) == ["b"])
        // Failures double the delay up to the bound.
        var t = Self.t0
        for _ in 0..<12 {
            d.begin("b", attempts: 1)
            _ = d.attempted("b", ok: false, at: t, jitter: 0.5)
            t += 120
        }
        #expect(d.due(["b"], at: t - 120 + PeerDialer.maxDelay - 0.1).isEmpty)
        #expect(d.due(["b"], at: t - 120 + PeerDialer.maxDelay) == ["b"])
        d.reset("b")
        #expect(d.due(["b"], at: t - 120) == ["b"])
    }

    @Test func theFirstSuccessOfARoundIsKeptAndClearsTheBackoff() {
        var d = PeerDialer()
        d.begin("b", attempts: 3)
        let r74 = d.attempted("b", ok: false, at: Self.t0, jitter: 0)
        #expect(!r74)
        let r77 = d.attempted("b", ok: true, at: Self.t0, jitter: 0)
        #expect(r77)
        let r80 = d.attempted("b", ok: true, at: Self.t0, jitter: 0)
        #expect(!r80, "a later success is closed")
        #expect(d.due(["b"], at: Self.t0) == ["b"])
    }

    @Test func jitterSpreadsTheDelay() {
        #expect(PeerDialer.delay(failures: 1, jitter: 0) == 0.8)
        #expect(abs(PeerDialer.delay(failures: 1, jitter: 1) - 1.2) < 1e-9)
        #expect(PeerDialer.delay(failures: 3, jitter: 0.5) == 4)
        #expect(PeerDialer.delay(failures: 30, jitter: 0.5) == PeerDialer.maxDelay)
    }

    @Test func aGoodbyeWaitsAFirstDelay() {
        var d = PeerDialer()
        d.leftNow("b", at: Self.t0, jitter: 0.5)
        #expect(d.due(["b"], at: Self.t0 + 0.5).isEmpty)
        #expect(d.due(["b"], at: Self.t0 + 1) == ["b"])
        d.resetAll()
        d.leftNow("b", at: Self.t0, jitter: 0.5)
        d.resetAll()
        #expect(d.due(["b"], at: Self.t0) == ["b"])
    }

    @Test func pingsAreDueOncePerIntervalOneAtATime() {
        var dir = ReachState()
        #expect(dir.duePings(among: ["a", "b"], at: Self.t0, interval: 2) == ["a", "b"])
        #expect(dir.duePings(among: ["a", "b"], at: Self.t0 + 3, interval: 2).isEmpty, "both still out")
        dir.pinging.remove("a")
        #expect(dir.duePings(among: ["a", "b"], at: Self.t0 + 1, interval: 2).isEmpty)
        #expect(dir.duePings(among: ["a", "b"], at: Self.t0 + 2, interval: 2) == ["a"])
    }

    @Test func anIdleLoopLooksAgainWhenTheNextPingOrDialIsDue() {
        var s = ReachState()
        let t = Self.t0
        // Nothing paired, nothing configured: the longest pause.
        #expect(s.nextLook(connected: [], unconnected: [], settled: true, pingInterval: 2, at: t) == t + ReachState.longLook)
        // One session, pinged at t and answered: the next ping, two seconds on (not four looks).
        _ = s.duePings(among: ["a"], at: t, interval: 2)
        s.pinging.remove("a")
        #expect(s.nextLook(connected: ["a"], unconnected: [], settled: true, pingInterval: 2, at: t + 0.01) == t + 2)
        // A shorter ping interval comes first; the pause never passes the longest one.
        #expect(s.nextLook(connected: ["a"], unconnected: [], settled: true, pingInterval: 0.3, at: t + 0.01) == t + 0.3)
        #expect(s.nextLook(connected: ["a"], unconnected: [], settled: true, pingInterval: 9, at: t + 0.01) == t + 0.01 + ReachState.longLook)
        // A peer whose dial failed: its backoff's end, when that comes first.
        s.dialer.begin("b", attempts: 1)
        _ = s.dialer.attempted("b", ok: false, at: t, jitter: 0)  // next try at t + 0.8
        #expect(s.nextLook(connected: ["a"], unconnected: ["b"], settled: true, pingInterval: 2, at: t + 0.01) == t + 0.8)
    }

    @Test func anythingUnderWayIsLookedAtAsOftenAsBefore() {
        var s = ReachState()
        let t = Self.t0
        let soon = t + ReachState.shortLook
        // A session never pinged, and a ping still out when the next is due.
        #expect(s.nextLook(connected: ["a"], unconnected: [], settled: true, pingInterval: 2, at: t) == soon)
        _ = s.duePings(among: ["a"], at: t, interval: 2)
        #expect(s.nextLook(connected: ["a"], unconnected: [], settled: true, pingInterval: 2, at: t + 0.1) == t + 2, "out, not yet late")
        #expect(s.nextLook(connected: ["a"], unconnected: [], settled: true, pingInterval: 2, at: t + 2.5) == t + 2.5 + ReachState.shortLook)
        // A peer due with nowhere to dial yet, and one whose dials are out.
        #expect(s.nextLook(connected: [], unconnected: ["b"], settled: true, pingInterval: 2, at: t) == soon)
        s.dialer.begin("c", attempts: 2)
        #expect(s.nextLook(connected: [], unconnected: ["c"], settled: true, pingInterval: 2, at: t) == soon)
        // A retired session waiting to close (a silent one being replaced is the same branch;
        // a LinkSession needs a channel, so the end-to-end chaos run covers that one).
        #expect(s.nextLook(connected: [], unconnected: [], settled: false, pingInterval: 2, at: t) == soon)
    }
}

@Suite struct SuspendDetectorTests {
    @Test func aJumpOfTheBootClockOverTheMonotonicOneIsAResume() {
        final class Clock: @unchecked Sendable { var gap = 100.0 }
        let clock = Clock()
        var d = SuspendDetector { clock.gap }
        var looks: [Bool] = []
        looks.append(d.resumed())
        clock.gap += 0.5  // drift, not sleep
        looks.append(d.resumed())
        clock.gap += 30  // slept half a minute
        looks.append(d.resumed())
        looks.append(d.resumed())  // once per sleep
        #expect(looks == [false, false, true, false])
        // The real clocks: no sleep between two looks.
        var real = SuspendDetector()
        let slept = real.resumed()
        #expect(!slept)
    }
}
