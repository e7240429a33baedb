#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// `library-books`: the content library's books.
public struct LibraryBooksRequest: ControlOperation {
    public typealias Result = Listing<BookInfo>
    public static let name = "library-books"
    public init() {}
    public init(request: ControlRequest) throws(ControlError) {}
    public var arguments: [String: PropertyListValue] { [:] }
}

public struct BookInfo: ControlItem, Equatable {
    public var id: UUID
    public var title: String
    public var tagline: String
    public var characters: Int64

    public init(id: UUID, title: String, tagline: String, characters: Int64) {
        (self.id, self.title, self.tagline, self.characters) = (id, title, tagline, characters)
    }

    public var object: PropertyListValue {
        ["id": .string(id.canonicalString), "title": .string(title), "tagline": .string(tagline), "characters": .integer(characters)]
    }

    public init(object: PropertyListValue) throws(ControlError) {
        let f = try Fields(object)
        self.init(id: try f.uuid("id"), title: try f.string("title"), tagline: try f.string("tagline"), characters: try f.integer("characters"))
    }
}

/// `library-characters`: a book's characters (the book by id or title).
public struct LibraryCharactersRequest: ControlOperation {
    public typealias Result = Listing<CharacterInfo>
    public static let name = "library-characters"
    public var book: String
    public init(book: String) { self.book = book }
    public init(request: ControlRequest) throws(ControlError) { book = try request.fields.string("book") }
    public var arguments: [String: PropertyListValue] { ["book": .string(book)] }
}

public struct CharacterInfo: ControlItem, Equatable {
    public var id: UUID
    public var name: String
    public var description: String
    public var book: UUID
    /// Its content path.
    public var content: String

    public init(id: UUID, name: String, description: String, book: UUID, content: String) {
        (self.id, self.name, self.description, self.book, self.content) = (id, name, description, book, content)
    }

    public var object: PropertyListValue {
        [
            "id": .string(id.canonicalString), "name": .string(name), "description": .string(description), "book": .string(book.canonicalString),
            "content": .string(content)
        ]
    }

    public init(object: PropertyListValue) throws(ControlError) {
        let f = try Fields(object)
        self.init(
            id: try f.uuid("id"), name: try f.string("name"), description: try f.string("description"), book: try f.uuid("book"),
            content: try f.string("content"))
    }
}
