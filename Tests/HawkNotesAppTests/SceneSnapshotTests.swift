import Foundation
import HandoffContent
import HandoffCore
import HawkNotes
import Testing

@testable import HawkNotesApp

/// What a window keeps in its scene, and what comes back from it.
@Suite struct SceneSnapshotTests {
    @Test func aWindowComesBackWhereItWas() throws {
        var s = AppState(library: library)
        _ = s.reduce(.key(.character("e")))
        for c in "draft in the first book" { _ = s.reduce(.key(.character(c))) }
        _ = s.reduce(.key(.enter))
        _ = s.reduce(.key(.character("3")))
        _ = s.reduce(.key(.down))
        _ = s.reduce(.key(.down))
        _ = s.reduce(.key(.enter))
        let snapshot = s.snapshot
        #expect(snapshot.content == ContentPath(tabID: clockmaker.id, itemID: clockmaker.characters[1].id))
        // Through the storage's own encoding, as handoffd keeps it.
        let kept = SceneSnapshot(content: snapshot.content, storage: try SceneStorage(propertyList: snapshot.storage.propertyList))
        var back = AppState(library: library)
        #expect(back.reduce(.restored(kept)) == [.becomeCurrent(.character(book: clockmaker.id, character: clockmaker.characters[1].id))])
        #expect(back.selectedBook == s.selectedBook && back.books == s.books)
    }

    @Test func thePathIsStoredAsTodaysScenesSpellIt() {
        var s = AppState(library: library)
        _ = s.reduce(.continued(book: burningSwift.id, character: beatrice.id, draft: nil))
        let at = ContentPath(tabID: burningSwift.id).description
        #expect(s.snapshot.storage[SceneSnapshot.Key.path, at] == .string("b|\(burningSwift.id.uuidString)::c|\(beatrice.id.uuidString)"))
        #expect(s.snapshot.storage[SceneSnapshot.Key.draft, at] == nil)
    }

    @Test func theScenesContentWinsOverItsStorage() {
        // A continuation routed into the scene while the app was away set the scene's content.
        var s = AppState(library: library)
        _ = s.reduce(.continued(book: saltAndLantern.id, character: saltAndLantern.characters[2].id, draft: nil))
        var snapshot = s.snapshot
        snapshot.content = ContentPath(tabID: burningSwift.id, itemID: beatrice.id)
        var back = AppState(library: library)
        _ = back.reduce(.restored(snapshot))
        #expect(back.selectedBook == burningSwift.id && back.selected.character == beatrice.id)
        #expect(back.books[saltAndLantern.id]?.character == saltAndLantern.characters[2].id, "the other book keeps its path")
    }

    @Test func whatNamesNothingHereIsLeftOut() {
        var storage = SceneStorage()
        let at = ContentPath(tabID: burningSwift.id).description
        // Another book's character on this book, a stranger's content, a negative scroll.
        storage[SceneSnapshot.Key.path, at] = .string(ContentPath(tabID: burningSwift.id, itemID: saltAndLantern.characters[0].id).description)
        storage[SceneSnapshot.Key.scroll, at] = .integer(-4)
        storage[SceneSnapshot.Key.cursor, at] = .integer(99)
        storage[SceneSnapshot.Key.draft, ContentPath(tabID: UUID()).description] = .string("not ours")
        var s = AppState(library: library)
        _ = s.reduce(.restored(SceneSnapshot(content: ContentPath(tabID: UUID()), storage: storage)))
        #expect(s.selectedBook == burningSwift.id)
        #expect(s.selected.character == nil && s.selected.scroll == 0)
        #expect(s.selected.cursor == burningSwift.characters.count, "clamped to the last row")
        #expect(s.books.values.allSatisfy { $0.draft.isEmpty })
    }
}
