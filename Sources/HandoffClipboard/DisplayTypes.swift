/// A copy another program made on the display, as the agent read it: each shared type with its
/// bytes, by MIME type (a password manager's copy: its hint alone, with no bytes).
public struct DisplayCopy: Sendable {
    public let items: [(mime: String, bytes: [UInt8])]
    public init(items: [(mime: String, bytes: [UInt8])]) { self.items = items }
}

/// How the shared MIME types meet what programs on a display offer and ask for (X11 targets,
/// Wayland MIME types). Text goes by several names: UTF8_STRING is what most X11 programs ask
/// for, `text/plain;charset=utf-8` what GTK and Qt offer beside it on both displays.
public enum DisplayTypes {
    public static let text = "text/plain;charset=utf-8"
    public static let hint = "x-kde-passwordManagerHint"
    /// Every name interned or recognised.
    public static let names = [
        text, "text/plain", "text/html", "text/uri-list", "image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", hint
    ]
    /// Read as text, best first.
    static let textNames = [text, "UTF8_STRING", "text/plain", "STRING", "TEXT"]
    static let otherTypes = ["text/html", "text/uri-list", "image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp"]
    /// What the agent adds to its own offers on Wayland, to know them when the compositor shows
    /// them back: never read, never shared.
    public static let ownMarker = "application/x-handoffd-clipboard-agent"

    /// Which of the names a program offers to read, and as which MIME type.
    public static func reads(_ offered: [String]) -> [(name: String, mime: String)] {
        var plan: [(String, String)] = []
        if let t = textNames.first(where: offered.contains) { plan.append((t, text)) }
        for mime in otherTypes where offered.contains(mime) { plan.append((mime, mime)) }
        return plan
    }

    /// The names we answer to for a MIME type we offer.
    public static func names(for mime: String) -> [String] { mime == text ? textNames : [mime] }

    /// The MIME type a program asks for by `name`, among those offered.
    public static func mime(for name: String, offered: [String]) -> String? { offered.first { names(for: $0).contains(name) } }
}
