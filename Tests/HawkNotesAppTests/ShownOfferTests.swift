import Foundation
import HawkNotes
import Testing

@testable import HawkNotesApp

/// What a window continued is not offered to it again: the demo's window on B, continued at
/// Lady Beatrice, said "“Viewing Lady Beatrice …” is open on alpha — c to continue" under Lady
/// Beatrice herself. It is offered again once alpha changes it, or the person moves on here.
@Suite struct ShownOfferTests {
    let id = UUID()
    func offer(version: Int64, id: UUID? = nil) -> Offer {
        Offer(peer: "alpha", activityID: id ?? self.id, type: HawkNotes.characterDetail.rawValue, title: "Viewing Lady Beatrice", version: version)
    }

    /// A window at Lady Beatrice, continued from alpha's activity `id` at version 4.
    func continuedWindow() -> AppState {
        var s = AppState(library: library)
        _ = s.reduce(.continued(book: burningSwift.id, character: beatrice.id, draft: nil))
        _ = s.reduce(.showing(activityID: id, version: 4))
        return s
    }

    func offerLine(_ s: AppState) -> String {
        Screen(s, library: library, width: 100, height: 30).lines.map { $0.map(\.text).joined() }.joined(separator: "\n")
    }

    @Test func whatTheWindowContinuedIsNotOfferedAgain() {
        var s = continuedWindow()
        _ = s.reduce(.offers([offer(version: 4)]))
        #expect(s.visibleOffers.isEmpty)
        #expect(!offerLine(s).contains("c to continue"), "\(offerLine(s))")
        #expect(s.reduce(.key(.character("c"))).isEmpty)
        #expect(s.notice == "no other machine offers an activity right now")
        // Moving the cursor changes nothing the window shows.
        _ = s.reduce(.key(.down))
        #expect(s.visibleOffers.isEmpty)
        // Another activity of alpha's is offered all along.
        let other = offer(version: 1, id: UUID())
        _ = s.reduce(.offers([offer(version: 4), other]))
        #expect(s.visibleOffers == [other])
        #expect(s.reduce(.key(.character("c"))) == [.continueOffer(other)])
    }

    @Test func itIsOfferedAgainOnceTheOtherMachineChangesIt() {
        var s = continuedWindow()
        _ = s.reduce(.offers([offer(version: 4)]))
        _ = s.reduce(.offers([offer(version: 5)]))
        #expect(s.visibleOffers == [offer(version: 5)])
        #expect(offerLine(s).contains("is open on alpha — c to continue"), "\(offerLine(s))")
    }

    @Test func itIsOfferedAgainOnceThePersonMovesOn() {
        var s = continuedWindow()
        _ = s.reduce(.offers([offer(version: 4)]))
        _ = s.reduce(.key(.escape))  // back from Lady Beatrice to the book
        #expect(s.visibleOffers == [offer(version: 4)])
        #expect(s.reduce(.key(.character("c"))) == [.continueOffer(offer(version: 4))])
    }

    /// A window reopened on a scene continued earlier knows the activity, not its version: the
    /// version listed next is the one it shows.
    @Test func aReopenedWindowTakesTheVersionListedNext() {
        var s = AppState(library: library)
        _ = s.reduce(.showing(activityID: id, version: nil))
        _ = s.reduce(.offers([offer(version: 7)]))
        #expect(s.visibleOffers.isEmpty)
        _ = s.reduce(.offers([offer(version: 7)]))
        #expect(s.visibleOffers.isEmpty)
        _ = s.reduce(.offers([offer(version: 8)]))
        #expect(s.visibleOffers == [offer(version: 8)])
    }
}
