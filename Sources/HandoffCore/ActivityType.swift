/// A reverse-DNS activity type such as `org.hawknotes.characterDetail`.
///
/// The rules are those of NSUserActivityTypes: labels of ASCII letters, digits and '-', separated
/// by dots, at least two labels, at most 255 bytes in all.
public struct ActivityType: Sendable, Hashable, Comparable, CustomStringConvertible {
    public static let maxLength = 255

    public let rawValue: String

    public init(_ rawValue: String) throws(ActivityError) {
        if let reason = Self.problem(with: rawValue) {
            throw .invalidType(rawValue, reason: reason)
        }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    public static func < (lhs: ActivityType, rhs: ActivityType) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    private static func problem(with value: String) -> String? {
        if value.utf8.isEmpty { return "it is empty" }
        if value.utf8.count > maxLength { return "it is longer than \(maxLength) bytes" }
        let labels = value.split(separator: ".", omittingEmptySubsequences: false)
        if labels.count < 2 { return "it needs at least two dot-separated labels" }
        for label in labels {
            if label.isEmpty { return "it has an empty label" }
            let ok = label.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A)
                    || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D
            }
            if !ok { return "label '\(label)' may hold only letters, digits and '-'" }
        }
        return nil
    }
}
