#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffContent
import HandoffCore
import HawkNotes

/// Between the app's views and the activities it advertises and continues: the same activity
/// types and handlers as handoffd's built-in routes (HawkNotes), so that a continuation lands on
/// the same book and character whether the app or the daemon routes it.
public struct ActivityMapping: Sendable {
    public let library: Library
    private let router: ActivityRouter

    public init(library: Library) {
        self.library = library
        // The sample's own declarations and handlers: distinct types, valid declarations (the
        // daemon starts with the same ones, and HawkNotesTests checks them).
        router = ActivityRouter(
            declared: try! DeclaredActivityTypes(HawkNotes.declarations), handlers: try! HandlerRegistry(HawkNotes.handlers(library: library)))
    }

    /// The activity types the app continues.
    public static let types = [HawkNotes.characterDetail, HawkNotes.bookDetail, HawkNotes.draftNote].map(\.rawValue)

    /// What a window is doing, as the activity it makes current.
    public func activity(_ current: CurrentActivity) -> UserActivity? {
        switch current {
        case .book(let id):
            return library.book(id: id).map(HawkNotes.bookDetailActivity)
        case .character(let bookID, let characterID):
            guard let book = library.book(id: bookID), let character = library.character(id: characterID) else { return nil }
            return HawkNotes.characterDetailActivity(character, in: book)
        case .draft(let bookID, let text):
            return library.book(id: bookID).map { HawkNotes.draftNoteActivity($0, text: text) }
        }
    }

    /// Where a continued activity takes the window; a failure says why it cannot be shown.
    public func input(continuing activity: UserActivity) throws(ContinuationFailure) -> AppInput {
        let route = try router.route(activity)
        var character: UUID?
        if case .item(let c)? = route.navigationPath.last { character = c }
        return .continued(book: route.tabID, character: character, draft: route.draftText)
    }

    /// The input a content path (`b|BOOK::c|CHAR`, as a continuation report or a scene gives it)
    /// stands for; nil if it names nothing in this library.
    public func input(showing content: String, draft: String? = nil) -> AppInput? {
        guard let path = try? ContentPath(parsing: content), library.book(id: path.tabID) != nil else { return nil }
        return .continued(book: path.tabID, character: path.itemID, draft: draft)
    }
}
