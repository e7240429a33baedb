import Foundation
import HandoffAdvert
import HandoffDiscovery
import HandoffProtocol
import Testing
@testable import HandoffDaemon

/// What a machine holds of a paired peer's activities is answered from only
/// while it is current: pushed on the session still open, or confirmed by the peer's advert.
@Suite struct RemoteActivitiesTests {
    static let note = "org.example.note", page = "org.example.page"
    let a = UUID(), b = UUID()
    // Two sessions' serials.
    let s1: UInt64 = 1, s2: UInt64 = 2

    func summary(_ id: UUID, version: UInt64, type: String = note) -> ActivitySummary {
        ActivitySummary(activityID: id, type: type, title: nil, scene: nil, version: version)
    }

    @Test func pushedItemsAreCurrentWhileTheirSessionIsOpen() {
        var d = RemoteDirectory()
        #expect(d.fresh("p", openSession: s1) == nil)
        d.pushed([summary(a, version: 1)], peerID: "p", session: s1)
        #expect(d.fresh("p", openSession: s1) == [summary(a, version: 1)])
        // Another session (or none): pushes on the old one no longer keep them current.
        #expect(d.fresh("p", openSession: s2) == nil)
        #expect(d.fresh("p", openSession: nil) == nil)
    }

    @Test func theAdvertConfirmsOrOutdatesWhatIsHeld() {
        var d = RemoteDirectory()
        let declared = Set([AdvertTXT.typeHash(Self.note)])
        d.pushed([summary(a, version: 1)], peerID: "p", session: nil)
        d.advertRead(([AdvertTXT.Token(activityID: a, type: Self.note, version: 1)]), peerID: "p", declared: declared)
        #expect(d.fresh("p", openSession: nil) == [summary(a, version: 1)])
        // With a session open, only what came over it counts: a cached advert may be stale.
        #expect(d.fresh("p", openSession: s1) == nil)
        // A new version in the advert: what we hold is out of date.
        d.advertRead(([AdvertTXT.Token(activityID: a, type: Self.note, version: 2)]), peerID: "p", declared: declared)
        #expect(d.fresh("p", openSession: nil) == nil)
    }

    @Test func activitiesOfTypesWeDoNotDeclareAreNotExpected() {
        var d = RemoteDirectory()
        let declared = Set([AdvertTXT.typeHash(Self.note)])
        d.pushed([summary(a, version: 3)], peerID: "p", session: nil)
        d.advertRead(
            [AdvertTXT.Token(activityID: a, type: Self.note, version: 3), AdvertTXT.Token(activityID: b, type: Self.page, version: 1)],
            peerID: "p", declared: declared)
        #expect(d.fresh("p", openSession: nil) == [summary(a, version: 3)])
        // A peer that advertises nothing we continue offers nothing: known without asking.
        var e = RemoteDirectory()
        e.advertRead(([AdvertTXT.Token(activityID: b, type: Self.page, version: 1)]), peerID: "q", declared: declared)
        #expect(e.fresh("q", openSession: nil) == [])
    }

    @Test func aListAnswerDoesNotReplaceAPushThatCameWhileItWasAsked() {
        var d = RemoteDirectory()
        d.pushed([summary(a, version: 1)], peerID: "p", session: s1)
        // A list asked now; before its answer reaches us, the peer pushes its newer list.
        let asked = d.mark("p")
        d.pushed([summary(a, version: 2)], peerID: "p", session: s1)
        d.answered([summary(a, version: 1)], peerID: "p", session: s1, mark: asked)
        #expect(d.fresh("p", openSession: s1) == [summary(a, version: 2)])
        // An invalidation is a push too.
        let again = d.mark("p")
        d.invalidated(a, peerID: "p")
        d.answered([summary(a, version: 2)], peerID: "p", session: s1, mark: again)
        #expect(d.fresh("p", openSession: s1) == [])
        // With no push meanwhile, the answer is what the peer offers.
        d.answered([summary(b, version: 1)], peerID: "p", session: s2, mark: d.mark("p"))
        #expect(d.fresh("p", openSession: s2) == [summary(b, version: 1)])
        // A first answer, from a peer never heard of before, is kept.
        d.answered([summary(b, version: 4)], peerID: "q", session: s1, mark: d.mark("q"))
        #expect(d.fresh("q", openSession: s1) == [summary(b, version: 4)])
    }
}
