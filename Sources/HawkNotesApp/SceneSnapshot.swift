#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffContent
import HandoffCore
import HawkNotes

/// A window's state as its scene keeps it in handoffd: the content the scene shows (its selected
/// book and character, `b|BOOK::c|CHAR`, which is what a continuation routed to the scene sets),
/// and its storage: per book, the character path, the draft, the cursor and the scroll, each
/// bound to that book's content path, so that no value of one book is ever read for another
/// (the seed app's shared-draft bug cannot happen).
public struct SceneSnapshot: Sendable, Equatable {
    public var content: ContentPath?
    public var storage: SceneStorage

    public init(content: ContentPath?, storage: SceneStorage) {
        (self.content, self.storage) = (content, storage)
    }

    /// The keys, each bound to a book's content path.
    public enum Key {
        public static let draft = ContentKey("draftText")
        /// `b|BOOK::c|CHAR` of the character open on the book, absent on the book itself.
        public static let path = ContentKey("characterPath")
        public static let cursor = ContentKey("cursor")
        public static let scroll = ContentKey("scroll")
    }
}

extension AppState {
    /// What the scene keeps of this window now.
    public var snapshot: SceneSnapshot {
        var storage = SceneStorage()
        for id in bookIDs {
            let book = books[id] ?? BookState()
            let at = ContentPath(tabID: id).description
            if !book.draft.isEmpty { storage[SceneSnapshot.Key.draft, at] = .string(book.draft) }
            if let c = book.character { storage[SceneSnapshot.Key.path, at] = .string(ContentPath(tabID: id, itemID: c).description) }
            if book.cursor != 0 { storage[SceneSnapshot.Key.cursor, at] = .integer(Int64(book.cursor)) }
            if book.scroll != 0 { storage[SceneSnapshot.Key.scroll, at] = .integer(Int64(book.scroll)) }
        }
        return SceneSnapshot(content: ContentPath(tabID: selectedBook, itemID: selected.character), storage: storage)
    }

    /// Takes what a scene kept. What names no book or character of this library is left out.
    mutating func restore(_ snapshot: SceneSnapshot) {
        for id in bookIDs {
            let at = ContentPath(tabID: id).description
            var book = BookState()
            book.draft = snapshot.storage[SceneSnapshot.Key.draft, at]?.stringValue ?? ""
            if let text = snapshot.storage[SceneSnapshot.Key.path, at]?.stringValue, let path = try? ContentPath(parsing: text),
                path.tabID == id, let c = path.itemID, characters[id]?.contains(c) == true
            {
                book.character = c
            }
            book.cursor = Self.integer(snapshot.storage[SceneSnapshot.Key.cursor, at])
            book.scroll = Self.integer(snapshot.storage[SceneSnapshot.Key.scroll, at])
            books[id] = book
            clampCursor(of: id)
        }
        // The scene's content wins for its book: a continuation routed while the app was away
        // set it, not the storage.
        if let content = snapshot.content, bookIDs.contains(content.tabID) {
            selectedBook = content.tabID
            if let c = content.itemID, characters[content.tabID]?.contains(c) == true {
                selected.character = c
                if let row = characters[content.tabID]?.firstIndex(of: c) { selected.cursor = row + 1 }
            } else {
                selected.character = nil
            }
            clampCursor(of: selectedBook)
        }
    }

    private static func integer(_ value: PropertyListValue?) -> Int {
        if case .integer(let n)? = value, n >= 0, n < 1_000_000 { return Int(n) }
        return 0
    }
}
