/// A scene-storage key whose value belongs to the scene as a whole (the selected filter, a
/// scroll position of the tab bar).
public struct SceneKey: Sendable, Hashable {
    public let name: String
    public init(_ name: String) { self.name = name }
}

/// A scene-storage key whose value belongs to one piece of content: it can only be read or written
/// together with a content identifier. A draft kept under one plain key showed on every tab (the
/// seed app's bug); a `ContentKey` cannot be used without naming what it belongs to.
public struct ContentKey: Sendable, Hashable {
    public let name: String
    public init(_ name: String) { self.name = name }
}
