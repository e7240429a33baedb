#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffContent
import HandoffCore

/// characterDetail: the typed `Character` payload names a character; route to the book that
/// introduces it, with the character pushed on the tab's navigation stack.
struct CharacterDetailHandler: ActivityHandler {
    let library: Library
    var activityTypes: Set<ActivityType> { [HawkNotes.characterDetail] }

    func route(for activity: UserActivity) throws(ContinuationFailure) -> Route {
        let character: BookCharacter
        do throws(ActivityError) { character = try activity.typedPayload(BookCharacter.self) } catch {
            throw .payloadDecodeFailed(type: activity.type.rawValue, reason: error.description)
        }
        guard let book = library.book(introducing: character.id) else {
            throw .contentNotFound(type: activity.type.rawValue, content: "c|\(character.id.canonicalString)")
        }
        return Route(tabID: book.id, navigationPath: [.item(character.id)])
    }
}

/// bookDetail: route to the book's tab, nothing pushed.
struct BookDetailHandler: ActivityHandler {
    let library: Library
    var activityTypes: Set<ActivityType> { [HawkNotes.bookDetail] }

    func route(for activity: UserActivity) throws(ContinuationFailure) -> Route {
        Route(tabID: try library.bookID(from: activity))
    }
}

/// draftNote: route to the book's tab and put the draft text back.
struct DraftNoteHandler: ActivityHandler {
    let library: Library
    var activityTypes: Set<ActivityType> { [HawkNotes.draftNote] }

    func route(for activity: UserActivity) throws(ContinuationFailure) -> Route {
        let bookID = try library.bookID(from: activity)
        guard let text = activity.userInfo[HawkNotes.Key.draftText]?.stringValue else {
            throw .payloadDecodeFailed(type: activity.type.rawValue, reason: "'\(HawkNotes.Key.draftText)' is not a string")
        }
        return Route(tabID: bookID, draftText: text)
    }
}

extension Library {
    /// The book named by the activity's `bookID` userInfo entry, checked against the library.
    fileprivate func bookID(from activity: UserActivity) throws(ContinuationFailure) -> UUID {
        let type = activity.type.rawValue
        guard let raw = activity.userInfo[HawkNotes.Key.bookID]?.stringValue else {
            throw .payloadDecodeFailed(type: type, reason: "'\(HawkNotes.Key.bookID)' is not a string")
        }
        guard let id = UUID(canonical: raw) else {
            throw .payloadDecodeFailed(type: type, reason: "'\(HawkNotes.Key.bookID)' is not a UUID")
        }
        guard book(id: id) != nil else { throw .contentNotFound(type: type, content: "b|\(raw)") }
        return id
    }
}
