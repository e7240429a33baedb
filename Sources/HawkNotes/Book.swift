#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffContent

/// A book of the Hawk Notes library. Each book is a tab in the sample app.
public struct Book: Sendable, Equatable, Identifiable {
    public let id: UUID
    public let title: String
    /// Prefix of the book's artwork file names (cover, banner).
    public let imagePrefix: String
    public let tagline: String
    public let synopsis: String
    public let storeURL: URL
    public let notes: String
    public let characters: [BookCharacter]

    public var contentPath: ContentPath { ContentPath(tabID: id) }

    public func contains(characterID: UUID) -> Bool {
        characters.contains { $0.id == characterID }
    }
}
