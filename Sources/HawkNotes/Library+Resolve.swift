#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffContent

/// Content a path resolved to: a book, and maybe one of its characters.
public struct ResolvedContent: Sendable, Equatable {
    public let book: Book
    public let character: BookCharacter?
}

extension Library {
    public func resolve(_ path: ContentPath) throws(ContentPathError) -> ResolvedContent {
        guard let book = book(id: path.tabID) else { throw .unknownBook(path.tabID) }
        guard let cid = path.itemID else { return ResolvedContent(book: book, character: nil) }
        guard let character = book.characters.first(where: { $0.id == cid }) else {
            if self.character(id: cid) == nil { throw .unknownCharacter(cid) }
            throw .characterNotInBook(character: cid, book: book.id)
        }
        return ResolvedContent(book: book, character: character)
    }

    public func resolve(_ text: String) throws(ContentPathError) -> ResolvedContent {
        try resolve(ContentPath(parsing: text))
    }
}
