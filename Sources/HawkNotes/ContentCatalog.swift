#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What the scene model needs to know of an app's content: which tabs exist, and which items
/// may be shown in which tab. The daemon's scenes are a tab and a navigation stack of items in
/// it; the app (Hawk Notes: books and their characters) says what those are.
public protocol ContentCatalog: Sendable {
    func hasTab(_ tab: UUID) -> Bool
    /// Whether `item` belongs to `tab` (may be pushed on its navigation stack).
    func tab(_ tab: UUID, contains item: UUID) -> Bool
}
