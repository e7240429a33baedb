#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HawkNotes

/// What one Hawk Notes window shows and remembers: a value, changed only by `AppState.reduce`.
/// The terminal and the daemon are outside it; they feed it `AppInput`s and carry out the
/// `AppEffect`s it returns.
public struct AppState: Sendable, Equatable {
    /// Where the keyboard goes.
    public enum Mode: Sendable, Equatable {
        case browsing
        /// Typing into the selected book's draft note.
        case editingDraft
        case help
    }

    /// How the app reaches handoffd.
    public enum Connection: Sendable, Equatable {
        case connecting
        case connected
        /// Why it is not (shown on the status line); the app retries by itself.
        case lost(String)
    }

    /// The books, in tab order, and each one's characters: what the cursor moves over.
    public let bookIDs: [UUID]
    public let characters: [UUID: [UUID]]
    public var selectedBook: UUID
    /// Per book: its navigation path, draft and scroll.
    public var books: [UUID: BookState]
    public var mode: Mode = .browsing
    /// Activities other machines offer, as handoffd lists them (`visibleOffers` are shown).
    public var offers: [Offer] = []
    /// The other machine's activity this window continued and still shows: not offered again
    /// until that machine changes it (a newer version) or the person moves on here. nil version:
    /// the one listed next (a window reopened on a scene continued earlier).
    public var showing: Showing?

    public struct Showing: Sendable, Equatable {
        public var activityID: UUID
        public var version: Int64?
    }
    public var connection: Connection = .connecting
    /// A message for the status line (an error, what was done).
    public var notice: String?
    /// How many character rows the screen shows (the terminal layer says, at each resize).
    public var visibleRows = 10

    public init(library: Library) {
        bookIDs = library.books.map(\.id)
        characters = Dictionary(uniqueKeysWithValues: library.books.map { ($0.id, $0.characters.map(\.id)) })
        selectedBook = library.books.first?.id ?? UUID()
        books = Dictionary(uniqueKeysWithValues: library.books.map { ($0.id, BookState()) })
    }

    public var selected: BookState {
        get { books[selectedBook] ?? BookState() }
        set { books[selectedBook] = newValue }
    }
}

/// One book tab: the character open on it (the navigation path book -> character), the row the
/// cursor is on, the draft note, how far the view is scrolled.
public struct BookState: Sendable, Equatable {
    public var character: UUID?
    public var cursor = 0
    public var draft = ""
    public var scroll = 0

    public init(character: UUID? = nil, cursor: Int = 0, draft: String = "", scroll: Int = 0) {
        (self.character, self.cursor, self.draft, self.scroll) = (character, cursor, draft, scroll)
    }
}

/// An activity a paired machine offers, as the app shows it.
public struct Offer: Sendable, Equatable {
    public let peer: String
    public let activityID: UUID
    public let type: String
    public let title: String
    /// Raised by the other machine at every change of the activity.
    public let version: Int64

    public init(peer: String, activityID: UUID, type: String, title: String, version: Int64 = 1) {
        (self.peer, self.activityID, self.type, self.title, self.version) = (peer, activityID, type, title, version)
    }
}
