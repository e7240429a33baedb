import Foundation
import HandoffCore
import Testing
@testable import HandoffContent

@Suite struct SceneRestorationTests {
    func richScene() throws -> Scene {
        var s = Scene(activationConditions: ActivationConditions(prefers: ["doc:7"], canShow: ["*"]))
        try s.show("doc:7#p2", navigation: ["doc:7", "doc:7#p2"])
        s.currentActivity = UserActivity(type: try ActivityType("org.example.reading"), title: "Reading 7")
        s.storage[ContentKey("draft"), "doc:7"] = "a draft"
        s.storage[SceneKey("zoom")] = 1.5
        s.storage[SceneKey("opened")] = .date(Date(timeIntervalSinceReferenceDate: 42))
        return s
    }

    @Test func roundTripsExactly() throws {
        for scene in [Scene(), try richScene()] {
            let activity = scene.restorationActivity()
            #expect(activity.type == Scene.restorationActivityType && !activity.isEligibleForHandoff)
            #expect(try Scene(restoringFrom: activity) == scene)
            #expect(try Scene(restoringFrom: UserActivity(decoding: try activity.encoded())) == scene)
        }
        #expect(try richScene().restorationActivity().targetContentIdentifier == "doc:7#p2")
    }

    /// A scene saved in the form before (Hawk Notes' tab and path) is read as the content and
    /// navigation it named.
    @Test func aSceneSavedInTheFormerFormIsRead() throws {
        let id = UUID(), tab = "E34747BE-30DC-4DD8-B191-BC6C56B9B9A3", c = "08D82D60-6977-42AA-9C22-AB1A07AE8A19"
        var former = UserActivity(type: try ActivityType("org.hawknotes.sceneRestoration"))
        try former.setUserInfo([
            "scene": .string(id.canonicalString), "tab": .string(tab), "path": [.string("b|\(tab)::c|\(c)")],
            "storage": ["scene": [:], "content": .dictionary(["b|\(tab)": ["draftText": "kept"]])], "prefers": [], "canShow": []
        ])
        let scene = try Scene(restoringFrom: former)
        #expect(scene.id == id && scene.content == "b|\(tab)::c|\(c)" && scene.navigation == ["b|\(tab)::c|\(c)"])
        #expect(scene.storage[ContentKey("draftText"), "b|\(tab)"] == "kept")
        try former.setUserInfo([
            "scene": .string(id.canonicalString), "tab": .string(tab), "storage": ["scene": [:], "content": [:]], "prefers": [], "canShow": []
        ])
        #expect(try Scene(restoringFrom: former).content == "b|\(tab)" && Scene(restoringFrom: former).navigation.isEmpty)
        // Written again in the new form.
        #expect(try Scene(restoringFrom: former).restorationActivity().type == Scene.restorationActivityType)
    }

    @Test func aDamagedOrForeignActivityIsRefused() throws {
        #expect(throws: SceneError.notARestorationActivity("org.example.reading")) {
            try Scene(restoringFrom: UserActivity(type: try ActivityType("org.example.reading")))
        }
        var damaged = try richScene().restorationActivity()
        try damaged.setUserInfo(["scene": "not a uuid", "storage": ["scene": [:], "content": [:]]])
        let e = #expect(throws: SceneError.self) { try Scene(restoringFrom: damaged) }
        guard case .malformedRestoration? = e else { return #expect(Bool(false), "\(String(describing: e))") }
        var badNavigation = try richScene().restorationActivity()
        var info = badNavigation.userInfo
        info["navigation"] = ["ok", ""]
        try badNavigation.setUserInfo(info)
        #expect(throws: SceneError.badContent("a content identifier is empty")) { try Scene(restoringFrom: badNavigation) }
    }
}
