import Foundation
import Testing

@testable import HawkNotesApp

/// With several saved windows, which one to open.
@Suite struct SceneChooserTests {
    let old = SceneChoice(id: UUID(), book: "Salt and Lantern", character: nil, updated: Date(timeIntervalSince1970: 100))
    let new = SceneChoice(id: UUID(), book: "The Burning Swift", character: "Lady Beatrice", updated: Date(timeIntervalSince1970: 200))

    @Test func newestFirstAndPicked() {
        var c = SceneChooser([old, new])
        #expect(c.choices.map(\.id) == [new.id, old.id])
        #expect(c.reduce(.enter) == .open(new.id))
        #expect(c.reduce(.down) == nil)
        #expect(c.reduce(.down) == nil && c.cursor == 1, "the cursor stops at the last one")
        #expect(c.reduce(.enter) == .open(old.id))
        #expect(c.reduce(.character("1")) == .open(new.id))
        #expect(c.reduce(.character("9")) == nil)
        #expect(c.reduce(.character("n")) == .newWindow)
        #expect(c.reduce(.character("q")) == .quit)
    }

    @Test func itsScreen() {
        let text = Screen(chooser: SceneChooser([old, new]), width: 80, height: 24).text
        #expect(text.contains("> 1 The Burning Swift > Lady Beatrice"))
        #expect(text.contains("  2 Salt and Lantern"))
        #expect(text.split(separator: "\n", omittingEmptySubsequences: false).count == 24)
    }
}
