/// Which targetContentIdentifiers a scene prefers, and which it can show (UIScene's
/// activationConditions). An entry matches a target equal to it, or any content inside it
/// (`b|X` matches `b|X::c|Y`); `*` matches everything.
public struct ActivationConditions: Sendable, Equatable {
    public var prefers: Set<String>
    public var canShow: Set<String>

    public init(prefers: Set<String> = [], canShow: Set<String> = []) {
        self.prefers = prefers
        self.canShow = canShow
    }

    public func prefers(_ target: String) -> Bool { prefers.contains { Self.entry($0, matches: target) } }
    public func canShow(_ target: String) -> Bool { canShow.contains { Self.entry($0, matches: target) } }

    static func entry(_ entry: String, matches target: String) -> Bool {
        entry == "*" || entry == target || target.hasPrefix(entry + "::")
    }
}
