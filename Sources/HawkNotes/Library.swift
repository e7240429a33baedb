#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffContent

/// The sample app's content: books and the characters they introduce. Immutable once loaded;
/// indexes are built at load so every query is a dictionary lookup.
public struct Library: Sendable {
    public let books: [Book]
    private let bookIndex: [UUID: Int]
    private let characterIndex: [UUID: Int]  // character id -> index of its book

    /// Builds a library from books already checked by the loader.
    init(books: [Book]) {
        self.books = books
        var bi: [UUID: Int] = [:]
        var ci: [UUID: Int] = [:]
        for (i, book) in books.enumerated() {
            bi[book.id] = i
            for c in book.characters { ci[c.id] = i }
        }
        bookIndex = bi
        characterIndex = ci
    }

    public func book(id: UUID) -> Book? { bookIndex[id].map { books[$0] } }

    public func character(id: UUID) -> BookCharacter? {
        book(introducing: id)?.characters.first { $0.id == id }
    }

    /// The book that introduces a character (each character belongs to exactly one book).
    public func book(introducing characterID: UUID) -> Book? {
        characterIndex[characterID].map { books[$0] }
    }

    public func book(introducing character: BookCharacter) -> Book? { book(introducing: character.id) }
}
