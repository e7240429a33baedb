#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore
import HawkNotes

/// The screen as lines of styled text, computed from the state: what the terminal layer paints,
/// and what tests read without a terminal. Every row fits `width` columns.
public struct Screen: Sendable, Equatable {
    public enum Style: Sendable, Equatable {
        case plain, bold, dim, reverse, title, accent
    }

    public struct Segment: Sendable, Equatable {
        public let text: String
        public let style: Style
        public init(_ text: String, _ style: Style = .plain) { (self.text, self.style) = (text, style) }
    }

    public let width: Int
    public let height: Int
    public internal(set) var lines: [[Segment]]
    /// Where the terminal cursor goes while a draft is typed (row, column).
    public internal(set) var cursor: (row: Int, column: Int)?

    public static func == (a: Screen, b: Screen) -> Bool {
        a.width == b.width && a.height == b.height && a.lines == b.lines && a.cursor?.row == b.cursor?.row && a.cursor?.column == b.cursor?.column
    }

    /// Rows above and below the character list: title, tabs, book header, draft, and the offer,
    /// status and help lines.
    static let fixedRows = 14

    /// How many character rows fit a terminal of this height.
    public static func characterRows(height: Int) -> Int { max(height - fixedRows, 1) }

    /// The smallest terminal the layout fits: the title and tabs, a book's tagline, the draft, the
    /// characters' heading and one of them, and the offer, status and key lines.
    public static let minimumColumns = 20, minimumRows = 10

    init(lines: [[Segment]], width: Int, height: Int) {
        self.width = width
        self.height = height
        self.lines = lines
    }

    /// A terminal smaller than the layout: what to do, in what fits, instead of rows painted past
    /// its edges (they wrapped over each other).
    init?(tooSmallWidth width: Int, height: Int) {
        guard width < Self.minimumColumns || height < Self.minimumRows else { return nil }
        let (width, height) = (max(width, 1), max(height, 1))
        let text = "Hawk Notes needs a terminal of \(Self.minimumColumns)×\(Self.minimumRows) or more; this one is \(width)×\(height)"
        self.init(lines: wrap(text, width: width).prefix(height).map { [Segment(fit($0, width), .bold)] }, width: width, height: height)
    }

    public init(_ state: AppState, library: Library, width: Int, height: Int) {
        if let small = Screen(tooSmallWidth: width, height: height) {
            self = small
            return
        }
        self.init(lines: [], width: width, height: height)
        let book = library.book(id: state.selectedBook)
        add([Segment(fit(" Hawk Notes" + (book.map { " — \($0.title)" } ?? ""), self.width), .title)])
        add(tabs(state, library))
        add([])
        if state.mode == .help {
            helpPage()
        } else if let book {
            if let id = state.selected.character, state.mode != .editingDraft, let character = library.character(id: id) {
                characterPage(character, in: book)
            } else {
                bookPage(book, state)
            }
        }
        while lines.count < self.height - 3 { add([]) }
        lines = Array(lines.prefix(self.height - 3))
        add(offerLine(state))
        add([Segment(fit(statusText(state), self.width), state.connection == .connected ? .dim : .accent)])
        add([Segment(fit(state.mode == .editingDraft ? "typing the draft: ⏎ or esc when done, ⌫ erases" : AppState.keyHelp, self.width), .reverse)])
        clipRows()
    }

    /// Every row cut to the width, whatever its parts: a row of several segments (the draft's)
    /// is not cut by `fit` as a whole.
    mutating func clipRows() {
        lines = lines.map { row in
            var left = width
            var out: [Segment] = []
            for segment in row where left > 0 {
                let text = segment.text.terminalColumns <= left ? segment.text : fit(segment.text, left)
                out.append(Segment(text, segment.style))
                left -= text.terminalColumns
            }
            return out
        }
    }

    private mutating func add(_ segments: [Segment]) { lines.append(segments) }

    private func tabs(_ state: AppState, _ library: Library) -> [Segment] {
        var out: [Segment] = []
        var used = 0
        for (i, b) in library.books.enumerated() {
            let label = " \(i + 1) \(b.title) "
            guard used + label.terminalColumns <= width else { break }
            out.append(Segment(label, b.id == state.selectedBook ? .reverse : .plain))
            used += label.terminalColumns
        }
        return out
    }

    private mutating func bookPage(_ book: Book, _ state: AppState) {
        add([Segment(fit(book.tagline, width), .bold)])
        // Below 15 rows the synopsis and the notes give way, so that the draft and the selected
        // character stay in view (they were cut off below, the draft's cursor off the screen).
        let synopsis = min(3, max(height - Self.minimumRows, 0))
        let notes = min(2, max(height - Self.minimumRows - synopsis, 0))
        for line in wrap(book.synopsis, width: width).prefix(synopsis) { add([Segment(line)]) }
        for line in wrap("Notes: " + book.notes, width: width).prefix(notes) { add([Segment(line, .dim)]) }
        let b = state.selected
        let editing = state.mode == .editingDraft
        let marker = b.cursor == 0 ? "> " : "  "
        let label = "Draft: "
        // The end of the draft stays in view while it is typed.
        let room = max(width - marker.count - label.count - 1, 2)
        let shown = b.draft.terminalColumns > room ? "…" + tail(b.draft, columns: room - 1) : b.draft
        add([
            Segment(marker + label, b.cursor == 0 ? .bold : .plain),
            Segment(shown.isEmpty && !editing ? "(empty: ⏎ to write)" : shown, editing ? .accent : .plain)
        ])
        if editing { cursor = (lines.count - 1, marker.count + label.count + shown.terminalColumns) }
        add([Segment("Characters", .bold)])
        let rows = Self.characterRows(height: height)
        for (i, c) in book.characters.enumerated().dropFirst(b.scroll).prefix(rows) {
            let selected = b.cursor == i + 1
            add([Segment(fit((selected ? "> " : "  ") + c.name, width), selected ? .reverse : .plain)])
        }
    }

    private mutating func characterPage(_ character: BookCharacter, in book: Book) {
        add([Segment(fit(character.name, width), .bold)])
        add([Segment(fit("in \(book.title)", width), .dim)])
        add([])
        // What is left between the heading's three rows and the two below, the "esc" row in view.
        for line in wrap(character.description, width: width).prefix(max(height - 11, 1)) { add([Segment(line)]) }
        add([])
        add([Segment(fit("esc: back to \(book.title)   n: open in a new window", width), .dim)])
    }

    private mutating func helpPage() {
        for line in [
            "←/→ or 1-3   switch book",
            "↑/↓          move between the draft note and the characters",
            "⏎            open the character, or write the draft",
            "esc          back from a character to its book",
            "n            open the character in a new window",
            "c            continue what another machine offers",
            "q            quit (the window comes back where it was)",
            "",
            "any key closes this help"
        ] {
            add([Segment(fit(line, width))])
        }
    }

    private func offerLine(_ state: AppState) -> [Segment] {
        let offers = state.visibleOffers
        guard let offer = offers.first else { return [] }
        let more = offers.count > 1 ? " (+\(offers.count - 1) more)" : ""
        // The title gives way first: who offers it and the key to press stay in view.
        let rest = "” is open on \(offer.peer.terminalSafe)\(more) — c to continue"
        let room = width - 1 - rest.terminalColumns
        let text = room >= 6 ? "“" + fit(offer.title.terminalSafe, room) + rest : "“\(offer.title.terminalSafe)" + rest
        return [Segment(fit(text, width), .accent)]
    }

    private func statusText(_ state: AppState) -> String {
        // A notice may carry another machine's words (a refusal's message): shown harmless.
        if let notice = state.notice { return notice.terminalSafe }
        switch state.connection {
        case .connecting: return "connecting to handoffd…"
        case .connected: return "saved in handoffd; continues on your paired machines"
        case .lost(let why): return "handoffd: \(why); your draft is kept here, reconnecting…"
        }
    }
}

extension Screen {
    /// The screen as plain text, one row a line (tests, and `hawknotes --print`).
    public var text: String {
        lines.map { $0.map(\.text).joined() }.joined(separator: "\n")
    }
}
