#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One step of a tab's navigation stack.
public enum NavigationItem: Sendable, Hashable {
    case item(UUID)
}

/// Where a continued activity takes the person: a tab, the navigation stack of items inside it,
/// and a draft to put back (Hawk Notes: a book, its characters, a draft note).
public struct Route: Sendable, Equatable {
    public let tabID: UUID
    public let navigationPath: [NavigationItem]
    public let draftText: String?

    public init(tabID: UUID, navigationPath: [NavigationItem] = [], draftText: String? = nil) {
        self.tabID = tabID
        self.navigationPath = navigationPath
        self.draftText = draftText
    }

    /// The content the route ends on: the last item shown, else the tab.
    public var contentPath: ContentPath {
        if case .item(let c)? = navigationPath.last { return ContentPath(tabID: tabID, itemID: c) }
        return ContentPath(tabID: tabID)
    }
}
