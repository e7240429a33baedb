import Foundation

/// One step of a tab's navigation stack.
public enum NavigationItem: Sendable, Hashable {
    case character(UUID)
}

/// Where a continued activity takes the person: a book tab, the navigation stack inside it, and
/// (for draft notes) the text to put back.
public struct Route: Sendable, Equatable {
    public let bookID: UUID
    public let navigationPath: [NavigationItem]
    public let draftText: String?

    public init(bookID: UUID, navigationPath: [NavigationItem] = [], draftText: String? = nil) {
        self.bookID = bookID
        self.navigationPath = navigationPath
        self.draftText = draftText
    }

    /// The content the route ends on: the last character shown, else the book.
    public var contentPath: ContentPath {
        if case .character(let c)? = navigationPath.last { return ContentPath(bookID: bookID, characterID: c) }
        return ContentPath(bookID: bookID)
    }
}
