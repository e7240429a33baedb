import Foundation
import HandoffContent

/// A keyword search result: a book by its title, or a character by name.
public enum LibrarySearchHit: Sendable, Equatable {
    case book(Book)
    case character(BookCharacter, in: Book)
}

extension Library {
    /// Books whose title and characters whose name contain every word of `keywords`, ignoring case
    /// and diacritics. Results keep library order, books before their characters.
    public func search(_ keywords: String) -> [LibrarySearchHit] {
        let words = keywords.split(whereSeparator: \.isWhitespace).map(String.init)
        guard !words.isEmpty else { return [] }
        func matches(_ text: String) -> Bool {
            words.allSatisfy { text.range(of: $0, options: [.caseInsensitive, .diacriticInsensitive]) != nil }
        }
        var hits: [LibrarySearchHit] = []
        for book in books {
            if matches(book.title) { hits.append(.book(book)) }
            for c in book.characters where matches(c.name) { hits.append(.character(c, in: book)) }
        }
        return hits
    }
}
