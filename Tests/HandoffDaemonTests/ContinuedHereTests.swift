import Foundation
import Testing
@testable import HandoffDaemon
import HandoffCore

/// Which machines gave this machine an activity that streams: an id is the origin's choice and
/// known to every machine it was shown to, so a second machine naming it never takes the first's place.
@Suite struct ContinuedHereTests {
    let now = Date(timeIntervalSinceReferenceDate: 10_000)

    @Test func aLaterPushOfTheSameIdByAnotherMachineDoesNotRebindTheFirst() {
        var c = ContinuedHere()
        let id = UUID()
        c.note(id, peerID: "alice", fingerprint: "aa", at: now)
        c.note(id, peerID: "bob", fingerprint: "bb", at: now + 1)
        // Both are kept: the stream's machine must be named (the daemon says `ambiguous-origin`).
        #expect(c.origins(of: id, at: now + 2).map(\.peerID) == ["alice", "bob"])
        // The same machine again takes one place, its time renewed.
        c.note(id, peerID: "bob", fingerprint: "bb", at: now + 3)
        #expect(c.origins(of: id, at: now + 4).map(\.peerID) == ["alice", "bob"])
    }

    @Test func entriesLapseAndStayBounded() {
        var c = ContinuedHere()
        let id = UUID()
        for i in 0..<10 { c.note(id, peerID: PeerID("p\(i)"), fingerprint: "f\(i)", at: now) }
        #expect(c.origins(of: id, at: now).count == ContinuedHere.originsPerActivity)
        #expect(c.origins(of: id, at: now + ContinuedHere.lifetime + 1).isEmpty)
        let ids = (0..<(ContinuedHere.capacity + 50)).map { _ in UUID() }
        for (i, other) in ids.enumerated() { c.note(other, peerID: "p", fingerprint: "f", at: now + Double(i) / 1_000) }
        let kept = ids.filter { !c.origins(of: $0, at: now + 1).isEmpty }.count
        #expect(kept <= ContinuedHere.capacity)
        #expect(!c.origins(of: ids.last!, at: now + 1).isEmpty)
    }
}
