#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffContent
import HandoffCore

/// The sample app's activity types, userInfo keys and built-in handlers. One prefix for all of
/// them: `org.hawknotes`.
public enum HawkNotes {
    public static let typePrefix = "org.hawknotes"

    // These literals satisfy ActivityType's rules; HawkNotesTests checks them.
    public static let characterDetail = try! ActivityType("org.hawknotes.characterDetail")
    public static let bookDetail = try! ActivityType("org.hawknotes.bookDetail")
    public static let draftNote = try! ActivityType("org.hawknotes.draftNote")

    public enum Key {
        public static let bookID = "bookID"
        public static let draftText = "draftText"
    }

    /// The declarations the daemon uses when the configuration lists no activity types.
    public static let declarations: [ActivityTypeDeclaration] = [
        ActivityTypeDeclaration(type: characterDetail, payload: BookCharacter.payloadTypeName),
        ActivityTypeDeclaration(type: bookDetail, requiredKeys: [Key.bookID]),
        ActivityTypeDeclaration(type: draftNote, requiredKeys: [Key.bookID, Key.draftText])
    ]

    public static func handlers(library: Library) -> [any ActivityHandler] {
        [
            CharacterDetailHandler(library: library),
            BookDetailHandler(library: library),
            DraftNoteHandler(library: library)
        ]
    }
}

extension HawkNotes {
    /// "Viewing <character> in <book>", carrying the character as its typed payload.
    public static func characterDetailActivity(_ character: BookCharacter, in book: Book) -> UserActivity {
        var activity = UserActivity(type: characterDetail, title: "Viewing \(character.name) in \(book.title)")
        // BookCharacter always encodes; a failure here would be a programming error.
        try! activity.setTypedPayload(character)
        activity.targetContentIdentifier = ContentPath(tabID: book.id, itemID: character.id).description
        return activity
    }

    public static func bookDetailActivity(_ book: Book) -> UserActivity {
        var activity = UserActivity(type: bookDetail, title: "Reading about \(book.title)")
        try! activity.addUserInfoEntries([Key.bookID: .string(book.id.canonicalString)])
        activity.targetContentIdentifier = book.contentPath.description
        try! activity.setWebpageURL(book.storeURL)
        return activity
    }

    public static func draftNoteActivity(_ book: Book, text: String) -> UserActivity {
        var activity = UserActivity(type: draftNote, title: "Note on \(book.title)")
        try! activity.addUserInfoEntries([Key.bookID: .string(book.id.canonicalString), Key.draftText: .string(text)])
        activity.targetContentIdentifier = book.contentPath.description
        activity.needsSave = true
        return activity
    }
}
