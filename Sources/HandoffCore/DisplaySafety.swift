/// Text from peers and strangers reaches terminals and logs. These are the characters that can
/// move the cursor, hide or reorder what follows (ESC, CR/LF, C1 controls such as CSI, bidi
/// overrides), so a peer's name could otherwise paint a fake pairing code over the real one.
extension Unicode.Scalar {
    public var isDisplayControl: Bool {
        switch properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        default: break
        }
        switch value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true  // bidi marks, embeddings, isolates
        default: return false
        }
    }
}

extension String {
    /// The text with every display control shown as a visible escape (`\u{1B}`), for printing
    /// anything that came from another machine.
    public var terminalSafe: String {
        guard unicodeScalars.contains(where: \.isDisplayControl) else { return self }
        var out = ""
        for s in unicodeScalars {
            if s.isDisplayControl { out += "\\u{" + String(s.value, radix: 16, uppercase: true) + "}" } else { out.unicodeScalars.append(s) }
        }
        return out
    }
}

/// The rules for a device name, the one a machine shows at pairing: those of a DNS-SD instance
/// name (1 to 63 bytes of UTF-8), without display controls.
public enum DeviceName {
    public static let maxBytes = 63

    /// Why `name` cannot be a device name, or nil if it can.
    public static func problem(_ name: String) -> String? {
        let bytes = name.utf8.count
        if bytes == 0 || bytes > maxBytes { return "must be 1 to \(maxBytes) bytes, is \(bytes)" }
        if name.unicodeScalars.contains(where: \.isDisplayControl) {
            return "must not contain control characters (line breaks, escapes, bidi controls)"
        }
        return nil
    }
}
