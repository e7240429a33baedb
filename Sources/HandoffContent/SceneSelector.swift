#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

public enum SceneChoice: Sendable, Equatable {
    case existing(UUID)
    case newScene
}

/// Picks the scene a continued activity lands in, in this order: the scene that prefers the
/// target content, one that can show it, the scene already showing the route's tab, the active
/// scene, else a new scene.
public enum SceneSelector {
    public static func choose(
        targetContentIdentifier target: String?, route: Route, scenes: [Scene], activeSceneID: UUID?
    ) -> SceneChoice {
        if let target {
            if let s = scenes.first(where: { $0.activationConditions.prefers(target) }) { return .existing(s.id) }
            if let s = scenes.first(where: { $0.activationConditions.canShow(target) }) { return .existing(s.id) }
        }
        if let s = scenes.first(where: { $0.selectedTabID == route.tabID }) { return .existing(s.id) }
        if let activeSceneID, scenes.contains(where: { $0.id == activeSceneID }) { return .existing(activeSceneID) }
        return .newScene
    }
}
