import Foundation
import HandoffCore
import Testing
@testable import HandoffContent
@testable import HawkNotes

@Suite struct SceneRestorationTests {
    let lib = shippedLibrary

    func richScene() throws -> Scene {
        var s = Scene(activationConditions: ActivationConditions(prefers: ["b|\(IDs.burningSwift.uuidString)"], canShow: ["*"]))
        let activity = HawkNotes.characterDetailActivity(lib.character(id: IDs.beatrice)!, in: lib.book(id: IDs.burningSwift)!)
        try s.apply(Route(tabID: IDs.burningSwift, navigationPath: [.item(IDs.beatrice), .item(IDs.orrin)]), from: activity, catalog: lib)
        s.setDraft("swift draft", forTab: IDs.burningSwift)
        s.setDraft("lantern draft", forTab: IDs.saltAndLantern)
        s.storage[SceneKey("zoom")] = 1.5
        s.storage[SceneKey("opened")] = .date(Date(timeIntervalSinceReferenceDate: 42))
        return s
    }

    @Test func roundTripsExactly() throws {
        for scene in [Scene(), try richScene()] {
            let activity = scene.restorationActivity()
            #expect(activity.type == HawkNotes.sceneRestoration)
            #expect(!activity.isEligibleForHandoff)
            #expect(try Scene(restoringFrom: activity, catalog: lib) == scene)
        }
    }

    @Test func roundTripsThroughTheCodec() throws {
        let scene = try richScene()
        let bytes = try scene.restorationActivity().encoded()
        let restored = try Scene(restoringFrom: UserActivity(decoding: bytes), catalog: lib)
        #expect(restored == scene)
        #expect(restored.draft(forTab: IDs.saltAndLantern) == "lantern draft")
        #expect(restored.restorationActivity().targetContentIdentifier == "b|\(IDs.burningSwift.uuidString)::c|\(IDs.orrin.uuidString)")
    }

    /// A restoration whose navigation names a character of another book than its tab.
    func foreignCharacterRestoration(pathEntry: String) throws -> UserActivity {
        var activity = try richScene().restorationActivity()
        var info = activity.userInfo
        info["path"] = [.string(pathEntry)]
        try activity.setUserInfo(info)
        return activity
    }

    @Test func characterOfAnotherBookIsNotAppliedToTheTab() throws {
        // Named under its own book.
        let own = try foreignCharacterRestoration(pathEntry: "b|\(IDs.saltAndLantern.uuidString)::c|\(IDs.pell.uuidString)")
        #expect(throws: SceneError.itemNotInTab(item: IDs.pell, tab: IDs.burningSwift)) {
            try Scene(restoringFrom: own, catalog: lib)
        }
        // Named as if it were in the tab's book.
        let claimed = try foreignCharacterRestoration(pathEntry: "b|\(IDs.burningSwift.uuidString)::c|\(IDs.pell.uuidString)")
        #expect(throws: SceneError.itemNotInTab(item: IDs.pell, tab: IDs.burningSwift)) {
            try Scene(restoringFrom: claimed, catalog: lib)
        }
    }

    @Test func damagedRestorations() throws {
        #expect(throws: SceneError.notARestorationActivity(HawkNotes.bookDetail.rawValue)) {
            try Scene(restoringFrom: HawkNotes.bookDetailActivity(lib.books[0]), catalog: lib)
        }
        var activity = try richScene().restorationActivity()
        var info = activity.userInfo
        info["tab"] = 7
        try activity.setUserInfo(info)
        let e = #expect(throws: SceneError.self) { try Scene(restoringFrom: activity, catalog: lib) }
        guard case .malformedRestoration? = e else {
            Issue.record("got \(String(describing: e))")
            return
        }
        info["tab"] = .string(UUID().uuidString)
        try activity.setUserInfo(info)
        let e2 = #expect(throws: SceneError.self) { try Scene(restoringFrom: activity, catalog: lib) }
        guard case .itemNotInTab? = e2 else {
            Issue.record("got \(String(describing: e2))")
            return
        }
    }
}
