#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
@_spi(_Unicode) import Swift
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
        let words = keywords.split(whereSeparator: \.isWhitespace).map { Self.folded(String($0)) }
        guard !words.isEmpty else { return [] }
        func matches(_ text: String) -> Bool {
            let text = Self.folded(text)
            return words.allSatisfy { text.contains($0) }
        }
        var hits: [LibrarySearchHit] = []
        for book in books {
            if matches(book.title) { hits.append(.book(book)) }
            for c in book.characters where matches(c.name) { hits.append(.character(c, in: book)) }
        }
        return hits
    }

    /// Lower case, without diacritics: the canonical decomposition (the standard library's own,
    /// which swift-foundation uses too) without its nonspacing marks. Foundation's
    /// `range(of:options: [.caseInsensitive, .diacriticInsensitive])` did this through ICU.
    static func folded(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.lowercased()._nfd where scalar.properties.generalCategory != .nonspacingMark { out.append(scalar) }
        return String(out)
    }
}
