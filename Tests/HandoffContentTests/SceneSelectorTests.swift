import Foundation
import Testing
@testable import HandoffContent
@testable import HawkNotes

@Suite struct SceneSelectorTests {
    let route = Route(tabID: IDs.burningSwift, navigationPath: [.item(IDs.beatrice)])
    var target: String { route.contentPath.description }

    func scene(showing book: UUID?, prefers: Set<String> = [], canShow: Set<String> = []) throws -> Scene {
        var s = Scene(activationConditions: ActivationConditions(prefers: prefers, canShow: canShow))
        try s.navigate(toTab: book, path: [], catalog: shippedLibrary)
        return s
    }

    @Test func preferringSceneWins() throws {
        let showing = try scene(showing: IDs.burningSwift)
        let prefers = try scene(showing: nil, prefers: ["b|\(IDs.burningSwift.uuidString)"])
        let choice = SceneSelector.choose(targetContentIdentifier: target, route: route, scenes: [showing, prefers], activeSceneID: showing.id)
        #expect(choice == .existing(prefers.id))
    }

    @Test func canShowComesAfterPrefers() throws {
        let can = try scene(showing: nil, canShow: ["*"])
        let prefers = try scene(showing: nil, prefers: [target])
        #expect(
            SceneSelector.choose(targetContentIdentifier: target, route: route, scenes: [can, prefers], activeSceneID: nil) == .existing(prefers.id))
        #expect(SceneSelector.choose(targetContentIdentifier: target, route: route, scenes: [can], activeSceneID: nil) == .existing(can.id))
    }

    @Test func sceneShowingTheBookComesNext() throws {
        let other = try scene(showing: IDs.saltAndLantern, prefers: ["b|\(IDs.saltAndLantern.uuidString)"])
        let showing = try scene(showing: IDs.burningSwift)
        #expect(
            SceneSelector.choose(targetContentIdentifier: target, route: route, scenes: [other, showing], activeSceneID: other.id)
                == .existing(showing.id))
    }

    @Test func activeSceneThenNew() throws {
        let other = try scene(showing: IDs.saltAndLantern)
        #expect(SceneSelector.choose(targetContentIdentifier: nil, route: route, scenes: [other], activeSceneID: other.id) == .existing(other.id))
        #expect(SceneSelector.choose(targetContentIdentifier: nil, route: route, scenes: [other], activeSceneID: UUID()) == .newScene)
        #expect(SceneSelector.choose(targetContentIdentifier: target, route: route, scenes: [], activeSceneID: nil) == .newScene)
    }

    @Test func conditionMatching() {
        let b = "b|\(IDs.burningSwift.uuidString)"
        #expect(ActivationConditions.entry(b, matches: b + "::c|X"))
        #expect(ActivationConditions.entry(b, matches: b))
        #expect(!ActivationConditions.entry(b + "::c|X", matches: b))
        #expect(!ActivationConditions.entry(b, matches: b + "X"))
        #expect(ActivationConditions.entry("*", matches: "anything"))
    }
}
