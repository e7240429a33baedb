import Foundation
import HandoffCore
import HawkNotes
import Testing

@testable import HawkNotesApp

/// The screen as text, without a terminal.
@Suite struct ScreenTests {
    @Test func aBookTabOnAVT100() {
        var s = AppState(library: library)
        s.layout(visibleRows: Screen.characterRows(height: 24))
        let screen = Screen(s, library: library, width: 80, height: 24)
        #expect(screen.lines.count == 24)
        #expect(screen.lines.allSatisfy { $0.map(\.text).joined().count <= 80 })
        #expect(screen.text.contains(burningSwift.tagline))
        #expect(screen.text.contains("> Draft: (empty: ⏎ to write)"))
        for c in burningSwift.characters { #expect(screen.text.contains(c.name)) }
        #expect(screen.lines.last?.first?.text.hasPrefix("←/→ book") == true, "the keys on the bottom line")
    }

    @Test func aCharacterAndAnOfferFromAnotherMachine() {
        var s = AppState(library: library)
        _ = s.reduce(.continued(book: burningSwift.id, character: beatrice.id, draft: nil))
        // A peer's title with a terminal escape in it is shown harmless.
        _ = s.reduce(.offers([Offer(peer: "alpha", activityID: UUID(), type: "t", title: "Viewing\u{1b}[2J Lady Beatrice")]))
        let text = Screen(s, library: library, width: 100, height: 30).text
        #expect(text.contains(beatrice.name) && text.contains("in \(burningSwift.title)"))
        #expect(text.contains("is open on alpha — c to continue"))
        #expect(!text.contains("\u{1b}"))
        // So is a notice carrying another machine's words (a refusal's message).
        _ = s.reduce(.notice("not continued: \u{1b}]0;owned\u{7}"))
        #expect(!Screen(s, library: library, width: 100, height: 30).text.contains("\u{1b}"))
    }

    @Test func typingShowsTheCursorAtTheDraftsEnd() {
        var s = AppState(library: library)
        _ = s.reduce(.key(.character("e")))
        for c in "abc" { _ = s.reduce(.key(.character(c))) }
        let screen = Screen(s, library: library, width: 80, height: 24)
        let row = try! #require(screen.cursor?.row)
        #expect(screen.lines[row].map(\.text).joined() == "> Draft: abc")
        #expect(screen.cursor?.column == "> Draft: abc".count)
    }
}
