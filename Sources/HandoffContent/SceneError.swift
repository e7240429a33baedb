#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Why a change or a restoration activity was not applied to a scene.
public enum SceneError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A content identifier the scene was given is not one (ContentIdentifier).
    case badContent(String)
    case navigationWithoutContent
    case notARestorationActivity(String)
    case malformedRestoration(String)
    /// The scene's new state could not be stored; the previous state is kept.
    case saveFailed(String)
    case unknownScene(UUID)

    public var description: String {
        switch self {
        case .badContent(let why):
            "\(why); the scene keeps what it showed"
        case .navigationWithoutContent:
            "a navigation stack needs the content it leads to"
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
