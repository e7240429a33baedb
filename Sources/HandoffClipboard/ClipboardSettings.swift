/// The person's clipboard settings (handoffd.yaml's `clipboard:`, docs/CLIPBOARD.md).
public struct ClipboardSettings: Sendable, Equatable {
    /// Shared at all.
    public var enabled: Bool
    /// Paired machines (by name) this one neither offers to nor takes offers from.
    public var refuseFrom: Set<String>
    /// A copy larger than this (all its shared types together) stays on its machine.
    public var maxBytes: Int
    /// How long an offer may be pasted. Two minutes by default, as Apple's Universal Clipboard:
    /// a copy meant for another machine is pasted there soon; pasted an hour later it would be a
    /// surprise, and an offer that lives on is content a paired machine could still ask for.
    public var lifetime: Duration

    public static let defaultMaxBytes = 16 * 1024 * 1024
    public static let defaultLifetime = Duration.seconds(120)

    public init(enabled: Bool = true, refuseFrom: Set<String> = [], maxBytes: Int = defaultMaxBytes, lifetime: Duration = defaultLifetime) {
        (self.enabled, self.refuseFrom, self.maxBytes, self.lifetime) = (enabled, refuseFrom, maxBytes, lifetime)
    }

    public func refused(_ name: String) -> Bool { refuseFrom.contains(name) }
}
