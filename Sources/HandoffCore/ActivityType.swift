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

    /// One pass over the bytes, for the usual case: every activity read from a peer or an app is
    /// checked, and splitting it into labels was a fifth of reading one (perf, a push). The reason
    /// is worked out below only for a type this refuses.
    private static func isWellFormed(_ value: String) -> Bool {
        var labels = 1, labelLength = 0, length = 0
        for byte in value.utf8 {
            length += 1
            if byte == 0x2E {
                if labelLength == 0 { return false }
                labels += 1
                labelLength = 0
            } else if isLabelByte(byte) {
                labelLength += 1
            } else {
                return false
            }
        }
        return length <= maxLength && labels >= 2 && labelLength > 0
    }

    /// A letter, a digit or '-': what a label may hold.
    private static func isLabelByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D
    }

    private static func problem(with value: String) -> String? {
        if isWellFormed(value) { return nil }
        if value.utf8.isEmpty { return "it is empty" }
        if value.utf8.count > maxLength { return "it is longer than \(maxLength) bytes" }
        let labels = value.split(separator: ".", omittingEmptySubsequences: false)
        if labels.count < 2 { return "it needs at least two dot-separated labels" }
        for label in labels {
            if label.isEmpty { return "it has an empty label" }
            if !label.utf8.allSatisfy(isLabelByte) { return "label '\(label)' may hold only letters, digits and '-'" }
        }
        return nil
    }
}
