import HandoffAdvert
import HandoffTestSupport
import Testing

/// The advert's rewrites and rotations come at moments that say nothing about the person.
@Suite struct AdvertScheduleTests {
    func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

    @Test func rewriteWaitsAreExponentialWithTheConfiguredMean() {
        var random = SplitMix64(seed: 28)
        let waits = (0..<20_000).map { _ in seconds(AdvertSchedule.exponential(mean: .seconds(30), using: &random)) }
        let mean = waits.reduce(0, +) / Double(waits.count)
        #expect(abs(mean - 30) < 0.9, "mean \(mean)")
        // Memoryless: the share above t is e^(-t/30), and of those above 30 s the share above 60 s is
        // the same as the share above 30 s of all.
        let above30 = waits.filter { $0 > 30 }, above60 = waits.filter { $0 > 60 }
        let p30 = Double(above30.count) / Double(waits.count), p60given30 = Double(above60.count) / Double(above30.count)
        #expect(abs(p30 - 0.3679) < 0.015, "P(>30 s) \(p30)")
        #expect(abs(p60given30 - p30) < 0.02, "P(>60 | >30) \(p60given30) against P(>30) \(p30)")
        // Its p90 is ln(10) x the mean: what a sessionless peer waits for a change at worst 1 in 10.
        let p90 = waits.sorted()[Int(Double(waits.count) * 0.9)]
        #expect(abs(p90 - 69.08) < 3, "p90 \(p90)")
        #expect(waits.allSatisfy { $0 >= 0 && $0.isFinite })
    }

    @Test func theNextRewriteIsDrawnAfterEachOneAndNothingElseMovesIt() {
        var random = SplitMix64(seed: 7)
        let t0 = ContinuousClock.now
        var s = AdvertSchedule(rewriteMean: .seconds(30), rotationMean: .seconds(900), now: t0, using: &random)
        let first = s.nextRewrite
        #expect(first > t0 && !s.isRewriteDue(at: t0))
        #expect(s.isRewriteDue(at: first))
        s.rewrote(at: first, using: &random)
        #expect(s.nextRewrite > first)
        #expect(s.nextEvent == min(s.nextRewrite, s.rotationDue))
    }

    @Test func lifetimesAndGapsAreDrawnInTheirRanges() {
        var random = SplitMix64(seed: 15)
        let t0 = ContinuousClock.now
        var s = AdvertSchedule(rewriteMean: .seconds(30), rotationMean: .seconds(900), now: t0, using: &random)
        var lifetimes: [Double] = [], gaps: [Double] = []
        for i in 0..<2_000 {
            let at = t0 + .seconds(i * 2_000)
            let announce = s.rotated(at: at, using: &random)
            gaps.append(seconds(announce - at))
            lifetimes.append(seconds(s.rotationDue - at))
        }
        #expect(lifetimes.allSatisfy { (450...1_350).contains($0) }, "\(lifetimes.min()!) ... \(lifetimes.max()!)")
        #expect(gaps.allSatisfy { (1...11).contains($0) }, "\(gaps.min()!) ... \(gaps.max()!)")
        // Spread over their ranges, not bunched: a fixed lifetime or gap would tie two names.
        #expect(lifetimes.max()! - lifetimes.min()! > 800 && gaps.max()! - gaps.min()! > 9)
        #expect(Set(gaps.map { Int($0) }).count == 10)
    }
}
