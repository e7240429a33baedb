#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffContent
import HandoffControl
import HandoffCore

/// The file's shape, with ids as strings so that a bad UUID is reported with its path. Read
/// from the file's JSON by HandoffControl's reader (the control lines' own), not JSONDecoder: a
/// restarted handoffd reads its library before it dials its peers, and JSONDecoder's first use
/// ran code nothing else at start runs, and made the runtime look up conformances for each
/// Decodable type, each a walk over all of the binary's conformance records
/// (docs/PERFORMANCE.md, "handoffctl's start" and what follows it).
private struct LibraryFile {
    struct BookEntry {
        let id: String, title: String, imagePrefix: String, tagline: String, synopsis: String
        let storeURL: String, notes: String
        let characters: [CharacterEntry]
    }
    struct CharacterEntry {
        let id: String, name: String, description: String
    }
    let books: [BookEntry]

    /// A library is a file someone edits, not a peer's message: far larger than a control line
    /// may be, but still bounded.
    static let limits = CodecLimits(maxDepth: 16, maxValues: 1_000_000, maxBytes: 64 << 20, maxKeyBytes: 1_024)

    init(_ root: PropertyListValue) throws(LibraryError) {
        let file = try Object(root, at: "$")
        books = try file.array("books").enumerated().map { (b, value) throws(LibraryError) -> BookEntry in
            let book = try Object(value, at: "$.books[\(b)]")
            return BookEntry(
                id: try book.string("id"), title: try book.string("title"), imagePrefix: try book.string("imagePrefix"),
                tagline: try book.string("tagline"), synopsis: try book.string("synopsis"), storeURL: try book.string("storeURL"),
                notes: try book.string("notes"),
                characters: try book.array("characters").enumerated().map { (c, value) throws(LibraryError) -> CharacterEntry in
                    let character = try Object(value, at: "\(book.path).characters[\(c)]")
                    return CharacterEntry(
                        id: try character.string("id"), name: try character.string("name"),
                        description: try character.string("description"))
                })
        }
    }

    /// One object of the file and its path: read with `Fields`, as the control operations read
    /// theirs, and each problem reported at the path of the field.
    struct Object {
        let fields: Fields
        let path: String

        init(_ value: PropertyListValue, at path: String) throws(LibraryError) {
            do throws(ControlError) { fields = try Fields(value) } catch { throw .malformed(path: path, reason: "must be an object") }
            self.path = path
        }

        func string(_ key: String) throws(LibraryError) -> String {
            do throws(ControlError) { return try fields.string(key) } catch { throw problem(key, error) }
        }

        func array(_ key: String) throws(LibraryError) -> [PropertyListValue] {
            do throws(ControlError) { return try fields.array(key) } catch { throw problem(key, error) }
        }

        private func problem(_ key: String, _ error: ControlError) -> LibraryError {
            guard case .badArgument(_, let reason) = error else { return .malformed(path: "\(path).\(key)", reason: error.description) }
            return .malformed(path: "\(path).\(key)", reason: reason)
        }
    }
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
        let root: PropertyListValue
        do throws(JSONValue.Problem) { root = try JSONValue.parse(Array(json), limits: LibraryFile.limits) } catch {
            throw .malformed(path: "$", reason: error.description)
        }
        let file = try LibraryFile(root)
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
}
