/// A scene-storage key whose value belongs to the scene as a whole (the selected filter, a
/// scroll position of the tab bar).
public struct SceneKey: Sendable, Hashable {
    public let name: String
    public init(_ name: String) { self.name = name }
}

/// A scene-storage key whose value belongs to one piece of content: it can only be read or written
/// together with a `ContentPath`. The seed app kept its draft under one plain key, so a draft typed
/// for one book appeared on every book tab; a `ContentKey` cannot be used without naming the book.
public struct ContentKey: Sendable, Hashable {
    public let name: String
    public init(_ name: String) { self.name = name }

    /// The draft note typed on a book tab.
    public static let draftText = ContentKey("draftText")
}
