#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffContent

/// Hawk Notes' content as the scene model sees it: a tab is a book, an item on its navigation
/// stack is one of that book's characters.
extension Library: ContentCatalog {
    public func hasTab(_ tab: UUID) -> Bool { book(id: tab) != nil }

    public func tab(_ tab: UUID, contains item: UUID) -> Bool { book(id: tab)?.contains(characterID: item) ?? false }
}
