#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// A window of an app (UISceneSession): the content it shows and the stack the person navigated
/// to reach it, both the app's own content identifiers (targetContentIdentifier), the activity it
/// is doing now, which content it takes (activationConditions), and its own storage. handoffd
/// keeps it and never reads into it: what the identifiers name is the app's.
public struct Scene: Sendable, Equatable, Identifiable {
    public let id: UUID
    /// What the window shows; nil: nothing yet.
    public private(set) var content: String?
    /// The app's navigation stack (outermost first), as content identifiers.
    public private(set) var navigation: [String]
    public var currentActivity: UserActivity?
    public var activationConditions: ActivationConditions
    public var storage: SceneStorage

    public init(id: UUID = UUID(), activationConditions: ActivationConditions = ActivationConditions()) {
        self.id = id
        self.content = nil
        self.navigation = []
        self.currentActivity = nil
        self.activationConditions = activationConditions
        self.storage = SceneStorage()
    }

    /// Shows `content` after `navigation`; each a content identifier, else nothing changes.
    public mutating func show(_ content: String?, navigation: [String]) throws(SceneError) {
        if content == nil, !navigation.isEmpty { throw .navigationWithoutContent }
        if navigation.count > ContentIdentifier.maxNavigation { throw .badContent("more than \(ContentIdentifier.maxNavigation) navigation entries") }
        for text in (content.map { [$0] } ?? []) + navigation {
            if let problem = ContentIdentifier.problem(text) { throw .badContent(problem) }
        }
        self.content = content
        self.navigation = navigation
    }
}
