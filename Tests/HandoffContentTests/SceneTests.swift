import Foundation
import HandoffCore
import Testing
@testable import HandoffContent
@testable import HawkNotes

@Suite struct SceneTests {
    let lib = shippedLibrary

    @Test func twoBookTabsKeepSeparateDrafts() {
        // The seed app's bug: one storage key for every tab, so a draft for one book showed on all.
        var scene = Scene()
        scene.setDraft("about the swift", forTab: IDs.burningSwift)
        scene.setDraft("about the lantern", forTab: IDs.saltAndLantern)
        #expect(scene.draft(forTab: IDs.burningSwift) == "about the swift")
        #expect(scene.draft(forTab: IDs.saltAndLantern) == "about the lantern")
        #expect(scene.draft(forTab: IDs.clockmaker) == nil)
        scene.setDraft(nil, forTab: IDs.burningSwift)
        #expect(scene.draft(forTab: IDs.burningSwift) == nil)
        #expect(scene.draft(forTab: IDs.saltAndLantern) == "about the lantern")
    }

    @Test func sceneAndContentKeysAreSeparate() {
        var storage = SceneStorage()
        let swiftPath = ContentPath(tabID: IDs.burningSwift)
        storage[SceneKey("draftText")] = "scene-wide"
        storage[ContentKey("draftText"), swiftPath] = "book"
        #expect(storage[SceneKey("draftText")] == "scene-wide")
        #expect(storage[ContentKey("draftText"), swiftPath] == "book")
        #expect(storage[ContentKey("draftText"), ContentPath(tabID: IDs.saltAndLantern)] == nil)
        #expect(storage.contents == [swiftPath])
    }

    @Test func storageIsPerScene() {
        var a = Scene(), b = Scene()
        a.setDraft("a", forTab: IDs.burningSwift)
        b.setDraft("b", forTab: IDs.burningSwift)
        #expect(a.draft(forTab: IDs.burningSwift) == "a" && b.draft(forTab: IDs.burningSwift) == "b")
    }

    @Test func applyingARoute() throws {
        var scene = Scene()
        let activity = HawkNotes.characterDetailActivity(lib.character(id: IDs.beatrice)!, in: lib.book(id: IDs.burningSwift)!)
        try scene.apply(Route(tabID: IDs.burningSwift, navigationPath: [.item(IDs.beatrice)]), from: activity, catalog: lib)
        #expect(scene.selectedTabID == IDs.burningSwift)
        #expect(scene.navigationPath == [.item(IDs.beatrice)])
        #expect(scene.currentActivity == activity)
        #expect(scene.contentPath == ContentPath(tabID: IDs.burningSwift, itemID: IDs.beatrice))
        try scene.apply(Route(tabID: IDs.saltAndLantern, draftText: "tide"), catalog: lib)
        #expect(scene.navigationPath.isEmpty && scene.draft(forTab: IDs.saltAndLantern) == "tide")
    }

    @Test func routeWithCharacterOfAnotherBookIsNotApplied() throws {
        var scene = Scene()
        try scene.apply(Route(tabID: IDs.saltAndLantern), catalog: lib)
        #expect(throws: SceneError.itemNotInTab(item: IDs.pell, tab: IDs.burningSwift)) {
            try scene.apply(Route(tabID: IDs.burningSwift, navigationPath: [.item(IDs.pell)]), catalog: lib)
        }
        #expect(scene.selectedTabID == IDs.saltAndLantern && scene.navigationPath.isEmpty)
        let unknown = UUID()
        #expect(throws: SceneError.unknownTab(unknown)) { try scene.apply(Route(tabID: unknown), catalog: lib) }
        #expect(throws: SceneError.navigationWithoutTab) { try scene.navigate(toTab: nil, path: [.item(IDs.pell)], catalog: lib) }
    }
}
