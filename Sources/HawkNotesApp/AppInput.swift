#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A key the app acts on, decoded by the terminal layer.
public enum AppKey: Sendable, Equatable {
    case up, down, left, right
    case nextTab, previousTab
    case enter, escape, backspace
    case character(Character)
    case resize
}

/// Everything that changes the app's state.
public enum AppInput: Sendable, Equatable {
    case key(AppKey)
    /// The scene's saved state, read at launch (or a continuation that landed in it).
    case restored(SceneSnapshot)
    /// A continuation routed to this window: open this book, this character, with this draft.
    case continued(book: UUID, character: UUID?, draft: String?)
    case offers([Offer])
    /// What this window now shows came from another machine's activity (a continuation, or the
    /// scene's current activity when it opens): `version` nil when not known.
    case showing(activityID: UUID, version: Int64?)
    case connection(AppState.Connection)
    case notice(String?)
}

/// What the app asks the outside to do after a change.
public enum AppEffect: Sendable, Equatable {
    /// Save the scene's state (the driver debounces, and saves at once on quit).
    case save
    /// What the person is doing now changed: make it the current activity (nil: none).
    case becomeCurrent(CurrentActivity?)
    /// Continue an offered activity here.
    case continueOffer(Offer)
    /// Open the character in a new window (a second scene).
    case openInNewWindow(book: UUID, character: UUID)
    case quit
}

/// What a window is doing, as the activity it advertises.
public enum CurrentActivity: Sendable, Equatable {
    case book(UUID)
    case character(book: UUID, character: UUID)
    case draft(book: UUID, text: String)
}
