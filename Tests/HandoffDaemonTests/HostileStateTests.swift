import Foundation
import HandoffLink
import Testing
@testable import HandoffDaemon

/// What a hostile peer could make us log, remember or believe, as pure state.
@Suite struct HostileStateTests {
    @Test func refusalsAreLoggedOncePerIntervalWithACount() {
        var log = RefusalLog()
        let t0 = ContinuousClock.now
        let r1 = log.note(peerID: "p", reason: "busy", at: t0)
        #expect(r1 == 1)
        for i in 1...9_999 {
            let held = log.note(peerID: "p", reason: "busy", at: t0 + .milliseconds(i))
            #expect(held == nil)
        }
        let r2 = log.note(peerID: "q", reason: "busy", at: t0)
        #expect(r2 == 1, "another peer has its own line")
        #expect(log.note(peerID: "p", reason: "busy", at: t0 + .seconds(61)) == 10_000)
    }

    @Test func aContinuationReportIsBelievedOnlyAfterAFetchAndOnce() {
        var served = ServedFetches()
        let a = UUID(), now = Date()
        let r3 = served.reported(a, by: "p", at: now)
        #expect(!r3, "never fetched")
        served.served(a, to: "p", at: now)
        let r4 = served.reported(a, by: "q", at: now)
        #expect(!r4, "fetched by another peer")
        let r5 = served.reported(a, by: "p", at: now)
        #expect(r5)
        let r6 = served.reported(a, by: "p", at: now)
        #expect(!r6, "only once")
        served.served(a, to: "p", at: now)
        let lapsed = served.reported(a, by: "p", at: now.addingTimeInterval(ServedFetches.lifetime + 1))
        #expect(!lapsed, "lapsed")
    }

    @Test func servedFetchesStayBounded() {
        var served = ServedFetches()
        let now = Date()
        let ids = (0..<(ServedFetches.capacity + 100)).map { _ in UUID() }
        for (i, id) in ids.enumerated() { served.served(id, to: "p", at: now.addingTimeInterval(Double(i) / 1000)) }
        let newest = served.reported(ids.last!, by: "p", at: now.addingTimeInterval(2))
        let oldest = served.reported(ids.first!, by: "p", at: now.addingTimeInterval(2))
        #expect(newest)
        #expect(!oldest, "the oldest went first")
    }
}

@Suite struct DescriptorBudgetTests {
    @Test func theSessionCapStaysBelowTheDescriptorLimit() {
        // The unit's 1024: the configured 256 fit (1024 - 128 - 24 - 32 = 840, three quarters 630).
        #expect(DescriptorBudget.sessions(configured: 256, limit: 1024, unauthenticated: 24, controlClients: 32) == 256)
        // A tight limit lowers it: 512 leaves 328, three quarters 246.
        #expect(DescriptorBudget.sessions(configured: 256, limit: 512, unauthenticated: 24, controlClients: 32) == 246)
        #expect(DescriptorBudget.sessions(configured: 256, limit: 100, unauthenticated: 24, controlClients: 32) == 4)
    }
}
