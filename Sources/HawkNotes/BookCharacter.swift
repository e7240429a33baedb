#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffContent
import HandoffCore

/// A character introduced by one book. Named `Character` on the wire (it is the typed payload of
/// the characterDetail activity); `BookCharacter` in Swift to stay clear of Swift.Character.
public struct BookCharacter: Sendable, Equatable, Identifiable, Codable, NamedActivityPayload {
    public static let payloadTypeName = "Character"

    public let id: UUID
    public let name: String
    public let description: String

    public init(id: UUID, name: String, description: String) {
        self.id = id
        self.name = name
        self.description = description
    }
}
