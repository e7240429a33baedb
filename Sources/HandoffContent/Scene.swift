#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// A window of the app (UISceneSession): which tab it shows, how far into that tab the person
/// navigated (a stack of items), the activity it is doing now, and its own storage. What tabs and
/// items are is the app's (a ContentCatalog: for Hawk Notes, books and their characters).
public struct Scene: Sendable, Equatable, Identifiable {
    public let id: UUID
    public private(set) var selectedTabID: UUID?
    public private(set) var navigationPath: [NavigationItem]
    public var currentActivity: UserActivity?
    public var activationConditions: ActivationConditions
    public var storage: SceneStorage

    public init(id: UUID = UUID(), activationConditions: ActivationConditions = ActivationConditions()) {
        self.id = id
        self.selectedTabID = nil
        self.navigationPath = []
        self.currentActivity = nil
        self.activationConditions = activationConditions
        self.storage = SceneStorage()
    }

    /// Selects a tab and its navigation stack. Every item on the stack must belong to that tab,
    /// else nothing changes.
    public mutating func navigate(toTab tabID: UUID?, path: [NavigationItem], catalog: any ContentCatalog) throws(SceneError) {
        guard let tabID else {
            if !path.isEmpty { throw .navigationWithoutTab }
            selectedTabID = nil
            navigationPath = []
            return
        }
        guard catalog.hasTab(tabID) else { throw .unknownTab(tabID) }
        for case .item(let c) in path where !catalog.tab(tabID, contains: c) {
            throw .itemNotInTab(item: c, tab: tabID)
        }
        selectedTabID = tabID
        navigationPath = path
    }

    /// Applies a handler's route: tab, stack, and a draft to restore into that tab's storage.
    public mutating func apply(_ route: Route, from activity: UserActivity? = nil, catalog: any ContentCatalog) throws(SceneError) {
        try navigate(toTab: route.tabID, path: route.navigationPath, catalog: catalog)
        if let text = route.draftText { setDraft(text, forTab: route.tabID) }
        if let activity { currentActivity = activity }
    }

    public func draft(forTab tabID: UUID) -> String? {
        storage[ContentKey.draftText, ContentPath(tabID: tabID)]?.stringValue
    }

    public mutating func setDraft(_ text: String?, forTab tabID: UUID) {
        storage[ContentKey.draftText, ContentPath(tabID: tabID)] = text.map(PropertyListValue.string)
    }

    /// The content the scene shows, as a content path.
    public var contentPath: ContentPath? {
        guard let selectedTabID else { return nil }
        return Route(tabID: selectedTabID, navigationPath: navigationPath).contentPath
    }
}
