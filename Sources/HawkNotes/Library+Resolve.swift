#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffContent
import HandoffControl

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

extension Library {
    /// The book's title and the character's name a content identifier of Hawk Notes names
    /// (`b|BOOK`, `b|BOOK::c|CHARACTER`); nil for what is not one of this library's.
    public func names(_ content: String?) -> (book: String?, character: String?) {
        guard let content, let path = try? ContentPath(parsing: content), let book = book(id: path.tabID) else { return (nil, nil) }
        return (book.title, path.itemID.flatMap { character(id: $0)?.name })
    }
}

/// Whether a scene handoffd keeps is a Hawk Notes window: made by it, or showing its content.
public func isHawkNotes(_ scene: SceneSummary) -> Bool {
    scene.role == "hawknotes" || scene.content.map { (try? ContentPath(parsing: $0)) != nil } == true
}
