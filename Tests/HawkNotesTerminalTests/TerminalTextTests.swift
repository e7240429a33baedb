import Testing
@testable import HawkNotesTerminal

/// What reaches the terminal is shown, never obeyed: a draft pushed from another machine may hold
/// a bidi override or an escape, and every row is drawn through one place.
@Suite struct TerminalTextTests {
    @Test func displayControlsAreDrawnAsReplacementCharacters() {
        #expect(Terminal.inert("draft \u{202E}txt.exe") == "draft \u{FFFD}txt.exe")
        #expect(Terminal.inert("\u{1B}]52;c;aGk=\u{07}x") == "\u{FFFD}]52;c;aGk=\u{FFFD}x")
        #expect(Terminal.inert("Lady Beatrice — ⏎") == "Lady Beatrice — ⏎")
    }
}
