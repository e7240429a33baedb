import Foundation
import HandoffCore

/// A window of the app (UISceneSession): which book tab it shows, how far into that tab the person
/// navigated, the activity it is doing now, and its own storage.
public struct Scene: Sendable, Equatable, Identifiable {
    public let id: UUID
    public private(set) var selectedBookID: UUID?
    public private(set) var navigationPath: [NavigationItem]
    public var currentActivity: UserActivity?
    public var activationConditions: ActivationConditions
    public var storage: SceneStorage

    public init(id: UUID = UUID(), activationConditions: ActivationConditions = ActivationConditions()) {
        self.id = id
        self.selectedBookID = nil
        self.navigationPath = []
        self.currentActivity = nil
        self.activationConditions = activationConditions
        self.storage = SceneStorage()
    }

    /// Selects a tab and its navigation stack. Every character on the stack must belong to that
    /// tab's book, else nothing changes.
    public mutating func navigate(toBook bookID: UUID?, path: [NavigationItem], library: Library) throws(SceneError) {
        guard let bookID else {
            if !path.isEmpty { throw .navigationWithoutTab }
            selectedBookID = nil
            navigationPath = []
            return
        }
        guard let book = library.book(id: bookID) else { throw .unknownBook(bookID) }
        for case .character(let c) in path where !book.contains(characterID: c) {
            throw .characterNotInTab(character: c, tab: bookID)
        }
        selectedBookID = bookID
        navigationPath = path
    }

    /// Applies a handler's route: tab, stack, and a draft to restore into that book's storage.
    public mutating func apply(_ route: Route, from activity: UserActivity? = nil, library: Library) throws(SceneError) {
        try navigate(toBook: route.bookID, path: route.navigationPath, library: library)
        if let text = route.draftText { setDraft(text, forBook: route.bookID) }
        if let activity { currentActivity = activity }
    }

    public func draft(forBook bookID: UUID) -> String? {
        storage[ContentKey.draftText, ContentPath(bookID: bookID)]?.stringValue
    }

    public mutating func setDraft(_ text: String?, forBook bookID: UUID) {
        storage[ContentKey.draftText, ContentPath(bookID: bookID)] = text.map(PropertyListValue.string)
    }

    /// The content the scene shows, as a content path.
    public var contentPath: ContentPath? {
        guard let selectedBookID else { return nil }
        return Route(bookID: selectedBookID, navigationPath: navigationPath).contentPath
    }
}
