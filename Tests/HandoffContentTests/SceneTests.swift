import Foundation
import HandoffCore
import Testing
@testable import HandoffContent

/// A scene holds its app's content identifiers and storage without reading into them.
@Suite struct SceneTests {
    @Test func showsWhatItIsGivenAndRefusesWhatIsNoIdentifier() throws {
        var s = Scene()
        try s.show("doc:42#section-3", navigation: ["doc:42", "doc:42#section-3"])
        #expect(s.content == "doc:42#section-3" && s.navigation == ["doc:42", "doc:42#section-3"])
        #expect(throws: SceneError.navigationWithoutContent) { try s.show(nil, navigation: ["doc:1"]) }
        #expect(throws: SceneError.badContent("a content identifier is empty")) { try s.show("", navigation: []) }
        #expect(throws: SceneError.badContent("a content identifier has a control character")) { try s.show("a\u{1B}[2J", navigation: []) }
        #expect(throws: SceneError.self) { try s.show(String(repeating: "x", count: ContentIdentifier.maxBytes + 1), navigation: []) }
        #expect(throws: SceneError.self) { try s.show("a", navigation: Array(repeating: "a", count: ContentIdentifier.maxNavigation + 1)) }
        // A refused change changes nothing.
        #expect(s.content == "doc:42#section-3" && s.navigation.count == 2)
        try s.show(nil, navigation: [])
        #expect(s.content == nil && s.navigation.isEmpty)
    }

    /// A value kept for one piece of content is not seen under another (the shared-draft bug).
    @Test func contentKeysAreBoundToTheirContent() {
        var storage = SceneStorage()
        let draft = ContentKey("draft")
        storage[draft, "book:A"] = "for A"
        #expect(storage[draft, "book:A"] == "for A" && storage[draft, "book:B"] == nil)
        storage[SceneKey("zoom")] = 1.5
        #expect(storage.contents == ["book:A"])
        storage[draft, "book:A"] = nil
        #expect(storage.contents.isEmpty && !storage.isEmpty)
    }

    @Test func storageReadBackRefusesAContentThatIsNoIdentifier() {
        let bad: PropertyListValue = ["scene": [:], "content": ["": ["k": 1]]]
        #expect(throws: CodecError.self) { try SceneStorage(propertyList: bad) }
    }
}
