#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Names a piece of content: a tab, `b|<tab-id>`, or an item in it, `b|<tab-id>::c|<item-id>`.
/// Used as targetContentIdentifier and as the scope of content-bound scene storage. (The letters
/// are Hawk Notes' books and characters, from before the scene model was split from it; saved
/// scenes and activities carry them, so they stay.)
public struct ContentPath: Sendable, Hashable, CustomStringConvertible {
    public let tabID: UUID
    public let itemID: UUID?

    public init(tabID: UUID, itemID: UUID? = nil) {
        self.tabID = tabID
        self.itemID = itemID
    }

    public var description: String {
        let book = "b|\(tabID.canonicalString)"
        guard let itemID else { return book }
        return "\(book)::c|\(itemID.canonicalString)"
    }

    /// The path of the book alone.
    public var book: ContentPath { ContentPath(tabID: tabID) }

    /// Strict parse of the textual form. It checks only the syntax; `Library.resolve` checks that
    /// the content exists.
    public init(parsing text: String) throws(ContentPathError) {
        if text.isEmpty { throw .empty }
        let parts = text.components(separatedBy: "::")
        if parts.count > 2 { throw .tooManyParts(text) }
        guard parts[0].hasPrefix("b|") else {
            if parts[0].hasPrefix("c|") { throw .missingBookPart(text) }
            throw .malformedSegment(parts[0])
        }
        tabID = try Self.uuid(in: parts[0])
        if parts.count == 2 {
            guard parts[1].hasPrefix("c|") else { throw .malformedSegment(parts[1]) }
            itemID = try Self.uuid(in: parts[1])
        } else {
            itemID = nil
        }
    }

    private static func uuid(in segment: String) throws(ContentPathError) -> UUID {
        let value = String(segment.dropFirst(2))
        guard let id = UUID(uuidString: value) else { throw .badUUID(value) }
        return id
    }
}

/// Every way a content path can be wrong, each its own case.
public enum ContentPathError: Error, Sendable, Equatable, CustomStringConvertible {
    case empty
    case missingBookPart(String)
    case malformedSegment(String)
    case tooManyParts(String)
    case badUUID(String)
    case unknownBook(UUID)
    case unknownCharacter(UUID)
    case characterNotInBook(character: UUID, book: UUID)

    public var description: String {
        let form = "use b|<book-id> or b|<book-id>::c|<character-id>"
        switch self {
        case .empty: return "the content path is empty; \(form)"
        case .missingBookPart(let p): return "content path '\(p)' has no book part; \(form)"
        case .malformedSegment(let s): return "content path segment '\(s)' is neither b|… nor c|…; \(form)"
        case .tooManyParts(let p): return "content path '\(p)' has more than two parts; \(form)"
        case .badUUID(let v): return "'\(v)' in a content path is not a UUID"
        case .unknownBook(let id): return "no book with id \(id.canonicalString) in Hawk Notes' library (hawknotes --library, or $HAWKNOTES_LIBRARY)"
        case .unknownCharacter(let id): return "no character with id \(id.canonicalString) in the library"
        case .characterNotInBook(let c, let b):
            return
                "character \(c.canonicalString) is not in book \(b.canonicalString) of Hawk Notes' library"
        }
    }
}
