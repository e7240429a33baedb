/// An app's name for a piece of its content (targetContentIdentifier): its own string, which
/// handoffd never reads into. Bounded and plain text, since it is shown, stored and matched.
public enum ContentIdentifier {
    public static let maxBytes = 1_024
    /// Entries of a scene's navigation stack at most.
    public static let maxNavigation = 64

    /// Why `text` cannot be a content identifier, or nil.
    public static func problem(_ text: String) -> String? {
        if text.isEmpty { return "a content identifier is empty" }
        if text.utf8.count > maxBytes { return "a content identifier is longer than \(maxBytes) bytes" }
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "a content identifier has a control character"
        }
        return nil
    }
}
