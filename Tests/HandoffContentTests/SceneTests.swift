import Foundation
import HandoffCore
import Testing
@testable import HandoffContent

@Suite struct SceneTests {
    let lib = shippedLibrary

    @Test func twoBookTabsKeepSeparateDrafts() {
        // The seed app's bug: one storage key for every tab, so a draft for one book showed on all.
        var scene = Scene()
        scene.setDraft("about the swift", forBook: IDs.burningSwift)
        scene.setDraft("about the lantern", forBook: IDs.saltAndLantern)
        #expect(scene.draft(forBook: IDs.burningSwift) == "about the swift")
        #expect(scene.draft(forBook: IDs.saltAndLantern) == "about the lantern")
        #expect(scene.draft(forBook: IDs.clockmaker) == nil)
        scene.setDraft(nil, forBook: IDs.burningSwift)
        #expect(scene.draft(forBook: IDs.burningSwift) == nil)
        #expect(scene.draft(forBook: IDs.saltAndLantern) == "about the lantern")
    }

    @Test func sceneAndContentKeysAreSeparate() {
        var storage = SceneStorage()
        let swiftPath = ContentPath(bookID: IDs.burningSwift)
        storage[SceneKey("draftText")] = "scene-wide"
        storage[ContentKey("draftText"), swiftPath] = "book"
        #expect(storage[SceneKey("draftText")] == "scene-wide")
        #expect(storage[ContentKey("draftText"), swiftPath] == "book")
        #expect(storage[ContentKey("draftText"), ContentPath(bookID: IDs.saltAndLantern)] == nil)
        #expect(storage.contents == [swiftPath])
    }

    @Test func storageIsPerScene() {
        var a = Scene(), b = Scene()
        a.setDraft("a", forBook: IDs.burningSwift)
        b.setDraft("b", forBook: IDs.burningSwift)
        #expect(a.draft(forBook: IDs.burningSwift) == "a" && b.draft(forBook: IDs.burningSwift) == "b")
    }

    @Test func applyingARoute() throws {
        var scene = Scene()
        let activity = HawkNotes.characterDetailActivity(lib.character(id: IDs.beatrice)!, in: lib.book(id: IDs.burningSwift)!)
        try scene.apply(Route(bookID: IDs.burningSwift, navigationPath: [.character(IDs.beatrice)]), from: activity, library: lib)
        #expect(scene.selectedBookID == IDs.burningSwift)
        #expect(scene.navigationPath == [.character(IDs.beatrice)])
        #expect(scene.currentActivity == activity)
        #expect(scene.contentPath == ContentPath(bookID: IDs.burningSwift, characterID: IDs.beatrice))
        try scene.apply(Route(bookID: IDs.saltAndLantern, draftText: "tide"), library: lib)
        #expect(scene.navigationPath.isEmpty && scene.draft(forBook: IDs.saltAndLantern) == "tide")
    }

    @Test func routeWithCharacterOfAnotherBookIsNotApplied() throws {
        var scene = Scene()
        try scene.apply(Route(bookID: IDs.saltAndLantern), library: lib)
        #expect(throws: SceneError.characterNotInTab(character: IDs.pell, tab: IDs.burningSwift)) {
            try scene.apply(Route(bookID: IDs.burningSwift, navigationPath: [.character(IDs.pell)]), library: lib)
        }
        #expect(scene.selectedBookID == IDs.saltAndLantern && scene.navigationPath.isEmpty)
        let unknown = UUID()
        #expect(throws: SceneError.unknownBook(unknown)) { try scene.apply(Route(bookID: unknown), library: lib) }
        #expect(throws: SceneError.navigationWithoutTab) { try scene.navigate(toBook: nil, path: [.character(IDs.pell)], library: lib) }
    }
}
