#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The reducer: an input changes the state and says what the outside must do. Pure: no
/// terminal, no socket, no clock.
extension AppState {
    /// The keys, as the help line and docs/HAWKNOTES.md show them.
    public static let keyHelp = "←/→ book  ↑/↓ move  ⏎ open  esc back  n window  c continue  ? help  q quit"

    public mutating func reduce(_ input: AppInput) -> [AppEffect] {
        switch input {
        case .key(let key):
            let before = currentActivity
            let effects = pressed(key)
            // The person moved on from what was continued: the other machine's is worth offering.
            if currentActivity != before { showing = nil }
            return effects
        case .restored(let snapshot):
            restore(snapshot)
            return [.becomeCurrent(currentActivity)]
        case .continued(let book, let character, let draft):
            guard bookIDs.contains(book) else { return [] }
            mode = .browsing
            selectedBook = book
            if let character, characters[book]?.contains(character) == true {
                selected.character = character
                selected.cursor = (characters[book]?.firstIndex(of: character) ?? 0) + 1
            } else {
                selected.character = nil
            }
            if let draft { selected.draft = draft }
            clampCursor(of: book)
            return [.save, .becomeCurrent(currentActivity)]
        case .offers(let offers):
            self.offers = offers
            if let shown = showing, let listed = offers.first(where: { $0.activityID == shown.activityID }) {
                if let version = shown.version {
                    // Changed there since: offered again.
                    if listed.version > version { showing = nil }
                } else {
                    showing?.version = listed.version
                }
            }
            return []
        case .showing(let id, let version):
            showing = Showing(activityID: id, version: version)
            return []
        case .connection(let c):
            connection = c
            // Lost, the status line says so: a notice before it (a save or an offer that failed
            // as the connection went) would hide it.
            if case .lost = c { notice = nil }
            return []
        case .notice(let text):
            notice = text
            return []
        }
    }

    /// What the window is doing, as an activity: the draft while typing it, else the character
    /// open, else the book.
    public var currentActivity: CurrentActivity? {
        if mode == .editingDraft { return .draft(book: selectedBook, text: selected.draft) }
        if let c = selected.character { return .character(book: selectedBook, character: c) }
        return .book(selectedBook)
    }

    private mutating func pressed(_ key: AppKey) -> [AppEffect] {
        notice = nil
        switch mode {
        case .help:
            mode = .browsing
            return []
        case .editingDraft:
            return typed(key)
        case .browsing:
            return browsed(key)
        }
    }

    private mutating func typed(_ key: AppKey) -> [AppEffect] {
        switch key {
        case .escape, .enter:
            mode = .browsing
            return [.save, .becomeCurrent(currentActivity)]
        case .backspace:
            guard !selected.draft.isEmpty else { return [] }
            selected.draft.removeLast()
            return [.save]
        case .character(let c):
            // A draft of reasonable size: an activity carries it whole.
            guard selected.draft.utf8.count + c.utf8.count <= Self.maxDraftBytes, !c.isNewline else { return [] }
            selected.draft.append(c)
            return [.save]
        default:
            return []
        }
    }

    /// A draft travels inside an activity (64 KB in all): a note stays well below.
    public static let maxDraftBytes = 8_192

    private mutating func browsed(_ key: AppKey) -> [AppEffect] {
        switch key {
        case .right, .nextTab: return switchTab(by: 1)
        case .left, .previousTab: return switchTab(by: -1)
        case .up: return move(by: -1)
        case .down: return move(by: 1)
        case .enter: return open()
        case .escape, .backspace: return back()
        case .character(let c):
            switch c {
            case "q": return [.save, .quit]
            case "?": mode = .help
            case "e": return open(row: 0)
            case "n": return newWindow()
            case "c": return continueOffer()
            case "1"..."9": return select(tab: Int(String(c))! - 1)
            default: break
            }
            return []
        case .resize:
            return []
        }
    }

    private mutating func switchTab(by step: Int) -> [AppEffect] {
        guard let i = bookIDs.firstIndex(of: selectedBook), !bookIDs.isEmpty else { return [] }
        return select(tab: (i + step + bookIDs.count) % bookIDs.count)
    }

    private mutating func select(tab: Int) -> [AppEffect] {
        guard bookIDs.indices.contains(tab), bookIDs[tab] != selectedBook else { return [] }
        selectedBook = bookIDs[tab]
        return [.save, .becomeCurrent(currentActivity)]
    }

    private mutating func move(by step: Int) -> [AppEffect] {
        let before = selected
        selected.cursor += step
        clampCursor(of: selectedBook)
        return selected == before ? [] : [.save]
    }

    /// Row 0 is the draft note; rows 1... the book's characters.
    private mutating func open(row: Int? = nil) -> [AppEffect] {
        let row = row ?? selected.cursor
        if row == 0 {
            mode = .editingDraft
            selected.cursor = 0
            return [.becomeCurrent(currentActivity)]
        }
        guard let c = characters[selectedBook]?[safe: row - 1], selected.character != c else { return [] }
        selected.character = c
        return [.save, .becomeCurrent(currentActivity)]
    }

    private mutating func back() -> [AppEffect] {
        guard selected.character != nil else { return [] }
        selected.character = nil
        return [.save, .becomeCurrent(currentActivity)]
    }

    private mutating func newWindow() -> [AppEffect] {
        let row = selected.cursor
        guard let c = selected.character ?? characters[selectedBook]?[safe: row - 1] else {
            notice = "open a character first (⏎), then n opens it in a new window"
            return []
        }
        return [.openInNewWindow(book: selectedBook, character: c)]
    }

    /// The offers shown: all but what this window continued and still shows.
    public var visibleOffers: [Offer] { offers.filter { $0.activityID != showing?.activityID } }

    private mutating func continueOffer() -> [AppEffect] {
        guard let offer = visibleOffers.first else {
            notice = "no other machine offers an activity right now"
            return []
        }
        return [.continueOffer(offer)]
    }

    /// Keeps the cursor on a row that exists, and the scroll so that the cursor is visible. The
    /// draft's row (cursor 0) is always shown; the scroll is in characters (cursor 1 is the first),
    /// as the screen shows them. It was counted in rows with the draft's, one off: going up a list
    /// longer than the screen, the selected character was the one just above the first shown.
    mutating func clampCursor(of book: UUID) {
        guard var b = books[book] else { return }
        let count = characters[book]?.count ?? 0
        b.cursor = min(max(b.cursor, 0), count)
        let visible = max(visibleRows, 1)
        if b.cursor > 0 {
            let index = b.cursor - 1
            if index < b.scroll { b.scroll = index }
            if index >= b.scroll + visible { b.scroll = index - visible + 1 }
        }
        b.scroll = min(max(b.scroll, 0), max(count - visible, 0))
        books[book] = b
    }

    /// The terminal changed size: the scroll of every book follows.
    public mutating func layout(visibleRows rows: Int) {
        visibleRows = max(rows, 1)
        for id in bookIDs { clampCursor(of: id) }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
