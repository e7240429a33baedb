import Foundation
import HandoffContent
import HandoffCore
import HawkNotes
import Testing

@testable import HawkNotesApp

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let library = try! Library(contentsOf: repositoryRoot.appendingPathComponent("config/library.json"))
let burningSwift = library.books[0], saltAndLantern = library.books[1], clockmaker = library.books[2]
let beatrice = burningSwift.characters[0]

/// The window as a value. Keys, continuations and restores go through the reducer;
/// the effects say what the outside must do.
@Suite struct AppReducerTests {
    func typed(_ text: String, into state: inout AppState) {
        for c in text { _ = state.reduce(.key(.character(c))) }
    }

    @Test func tabsSwitchAndSayWhatIsViewed() {
        var s = AppState(library: library)
        #expect(s.selectedBook == burningSwift.id)
        #expect(s.reduce(.key(.right)) == [.save, .becomeCurrent(.book(saltAndLantern.id))])
        #expect(s.reduce(.key(.left)) == [.save, .becomeCurrent(.book(burningSwift.id))])
        _ = s.reduce(.key(.left))
        #expect(s.selectedBook == clockmaker.id, "left from the first tab wraps to the last")
        _ = s.reduce(.key(.character("2")))
        #expect(s.selectedBook == saltAndLantern.id)
        #expect(s.reduce(.key(.character("2"))).isEmpty, "the tab already shown: nothing to do")
    }

    @Test func openingACharacterAndGoingBack() {
        var s = AppState(library: library)
        #expect(s.reduce(.key(.down)) == [.save])
        #expect(s.reduce(.key(.enter)) == [.save, .becomeCurrent(.character(book: burningSwift.id, character: beatrice.id))])
        #expect(s.selected.character == beatrice.id)
        #expect(s.reduce(.key(.escape)) == [.save, .becomeCurrent(.book(burningSwift.id))])
        #expect(s.selected.character == nil)
        #expect(s.reduce(.key(.escape)).isEmpty)
    }

    @Test func eachBookKeepsItsOwnDraft() {
        var s = AppState(library: library)
        #expect(s.reduce(.key(.enter)) == [.becomeCurrent(.draft(book: burningSwift.id, text: ""))], "row 0 is the draft")
        typed("fire", into: &s)
        #expect(s.reduce(.key(.backspace)) == [.save])
        #expect(s.reduce(.key(.escape)) == [.save, .becomeCurrent(.book(burningSwift.id))])
        _ = s.reduce(.key(.right))
        #expect(s.selected.draft == "", "the seed app's shared-draft bug: another book shows none of it")
        _ = s.reduce(.key(.character("e")))
        typed("salt", into: &s)
        _ = s.reduce(.key(.enter))
        #expect(s.books[burningSwift.id]?.draft == "fir")
        #expect(s.books[saltAndLantern.id]?.draft == "salt")
        #expect(s.books[clockmaker.id]?.draft == "")
    }

    @Test func aDraftDoesNotGrowPastItsLimit() {
        var s = AppState(library: library)
        _ = s.reduce(.key(.character("e")))
        typed(String(repeating: "x", count: AppState.maxDraftBytes), into: &s)
        #expect(s.reduce(.key(.character("y"))).isEmpty)
        #expect(s.selected.draft.utf8.count == AppState.maxDraftBytes)
    }

    @Test func theCursorStaysOnARowAndInView() {
        var s = AppState(library: library)
        s.layout(visibleRows: 2)
        for _ in 0..<10 { _ = s.reduce(.key(.down)) }
        #expect(s.selected.cursor == burningSwift.characters.count)
        #expect(s.selected.scroll == burningSwift.characters.count - 2, "the last two characters in view, two rows shown")
        _ = s.reduce(.key(.up))
        _ = s.reduce(.key(.up))
        // The first of the two shown was left: the list follows (scrolled in characters).
        #expect(s.selected.cursor == burningSwift.characters.count - 2)
        #expect(s.selected.scroll == burningSwift.characters.count - 3)
        for _ in 0..<10 { _ = s.reduce(.key(.up)) }
        #expect(s.selected.cursor == 0 && s.selected.scroll == 0)
    }

    @Test func aContinuationOpensItsBookAndCharacter() {
        var s = AppState(library: library)
        _ = s.reduce(.key(.right))
        let effects = s.reduce(.continued(book: burningSwift.id, character: beatrice.id, draft: nil))
        #expect(effects == [.save, .becomeCurrent(.character(book: burningSwift.id, character: beatrice.id))])
        #expect(s.selectedBook == burningSwift.id && s.selected.character == beatrice.id && s.selected.cursor == 1)
        // A draft continued lands in its own book only.
        _ = s.reduce(.continued(book: clockmaker.id, character: nil, draft: "tick"))
        #expect(s.books[clockmaker.id]?.draft == "tick" && s.books[burningSwift.id]?.draft == "")
        // Content that is not in this library changes nothing.
        #expect(s.reduce(.continued(book: UUID(), character: nil, draft: "x")).isEmpty)
    }

    @Test func newWindowNeedsACharacter() {
        var s = AppState(library: library)
        #expect(s.reduce(.key(.character("n"))).isEmpty)
        #expect(s.notice != nil)
        _ = s.reduce(.key(.down))
        #expect(s.reduce(.key(.character("n"))) == [.openInNewWindow(book: burningSwift.id, character: beatrice.id)])
    }

    /// CI saw the status line say "not offered to your other machines: the connection to handoffd
    /// was lost" instead of that handoffd was gone: a notice set as the connection went hid it.
    @Test func aLostConnectionIsWhatTheStatusLineSays() {
        var s = AppState(library: library)
        _ = s.reduce(.connection(.connected))
        _ = s.reduce(.notice("not offered to your other machines: the connection to handoffd was lost"))
        _ = s.reduce(.connection(.lost("not running or not reachable at /run/handoffd/control.sock")))
        #expect(s.notice == nil)
        let screen = Screen(s, library: library, width: 120, height: 30).text
        #expect(screen.contains("handoffd: not running or not reachable"), "\(screen)")
    }

    @Test func continueTakesTheFirstOffer() {
        var s = AppState(library: library)
        #expect(s.reduce(.key(.character("c"))).isEmpty)
        let offer = Offer(peer: "alpha", activityID: UUID(), type: HawkNotes.characterDetail.rawValue, title: "Viewing Lady Beatrice")
        _ = s.reduce(.offers([offer]))
        #expect(s.reduce(.key(.character("c"))) == [.continueOffer(offer)])
        #expect(s.reduce(.key(.character("q"))) == [.save, .quit])
    }
}
