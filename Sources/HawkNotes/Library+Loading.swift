#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffContent

/// The file's shape, with ids as strings so that a bad UUID is reported with its path instead of
/// as an opaque decoding failure.
private struct LibraryFile: Decodable {
    struct BookEntry: Decodable {
        let id: String, title: String, imagePrefix: String, tagline: String, synopsis: String
        let storeURL: String, notes: String
        let characters: [CharacterEntry]
    }
    struct CharacterEntry: Decodable {
        let id: String, name: String, description: String
    }
    let books: [BookEntry]
}

extension Library {
    public init(contentsOf url: URL) throws(LibraryError) {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw .unreadable(file: url.path, reason: error.fileErrorText)
        }
        try self.init(json: data)
    }

    public init(json: Data) throws(LibraryError) {
        let file: LibraryFile
        do { file = try JSONDecoder().decode(LibraryFile.self, from: json) } catch let error as DecodingError {
            throw Self.describe(error)
        } catch {
            throw .malformed(path: "$", reason: "\(error)")
        }
        var books: [Book] = []
        var bookPaths: [UUID: String] = [:]
        var characterPaths: [UUID: String] = [:]
        for (b, entry) in file.books.enumerated() {
            let bookPath = "$.books[\(b)]"
            let bookID = try Self.uuid(entry.id, at: bookPath + ".id")
            if bookPaths[bookID] != nil { throw .duplicateBookID(path: bookPath + ".id", id: entry.id) }
            bookPaths[bookID] = bookPath
            guard let store = URL(string: entry.storeURL), ["http", "https"].contains(store.scheme?.lowercased() ?? "")
            else { throw .badURL(path: bookPath + ".storeURL", value: entry.storeURL) }
            var characters: [BookCharacter] = []
            for (c, ch) in entry.characters.enumerated() {
                let path = "\(bookPath).characters[\(c)].id"
                let id = try Self.uuid(ch.id, at: path)
                if let first = characterPaths[id] {
                    if first.hasPrefix(bookPath + ".") { throw .duplicateCharacterID(path: path, id: ch.id) }
                    throw .characterInTwoBooks(path: path, id: ch.id, firstPath: first)
                }
                characterPaths[id] = path
                characters.append(BookCharacter(id: id, name: ch.name, description: ch.description))
            }
            books.append(
                Book(
                    id: bookID, title: entry.title, imagePrefix: entry.imagePrefix,
                    tagline: entry.tagline, synopsis: entry.synopsis, storeURL: store,
                    notes: entry.notes, characters: characters))
        }
        self.init(books: books)
    }

    private static func uuid(_ value: String, at path: String) throws(LibraryError) -> UUID {
        guard let id = UUID(uuidString: value) else { throw .badUUID(path: path, value: value) }
        return id
    }

    private static func describe(_ error: DecodingError) -> LibraryError {
        func path(_ keys: [any CodingKey]) -> String {
            keys.reduce("$") { p, k in k.intValue.map { "\(p)[\($0)]" } ?? "\(p).\(k.stringValue)" }
        }
        switch error {
        case .keyNotFound(let key, let ctx):
            return .malformed(path: path(ctx.codingPath + [key]), reason: "missing")
        case .typeMismatch(let type, let ctx):
            return .malformed(path: path(ctx.codingPath), reason: "expected \(type)")
        case .valueNotFound(let type, let ctx):
            return .malformed(path: path(ctx.codingPath), reason: "expected \(type), found null")
        case .dataCorrupted(let ctx):
            return .malformed(path: path(ctx.codingPath), reason: ctx.debugDescription)
        @unknown default:
            return .malformed(path: "$", reason: "\(error)")
        }
    }
}
