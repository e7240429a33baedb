#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Why a route or a restoration activity was not applied to a scene.
public enum SceneError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownTab(UUID)
    case itemNotInTab(item: UUID, tab: UUID)
    case navigationWithoutTab
    case notARestorationActivity(String)
    case malformedRestoration(String)
    /// The scene's new state could not be stored; the previous state is kept.
    case saveFailed(String)
    case unknownScene(UUID)

    public var description: String {
        switch self {
        case .unknownTab(let id):
            "tab \(id.canonicalString) is not in the app's content (for Hawk Notes: no such book in the library); the scene keeps its previous tab"
        case .itemNotInTab(let c, let tab):
            "\(c.canonicalString) does not belong to the tab \(tab.canonicalString) (for Hawk Notes: the character is not in that book); the navigation is not applied"
        case .navigationWithoutTab:
            "a navigation path needs a selected tab"
        case .notARestorationActivity(let type):
            "activity '\(type)' is not a scene restoration activity"
        case .malformedRestoration(let detail):
            "the restoration activity is damaged: \(detail); the scene starts fresh"
        case .unknownScene(let id):
            "no scene \(id.canonicalString); connect it first (handoffctl scene connect) or see `handoffctl scenes`"
        case .saveFailed(let why):
            "the scene's state could not be saved (\(why)); it keeps its previous state. Check free space and permissions of the state directory"
        }
    }
}
