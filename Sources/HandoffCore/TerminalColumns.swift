/// How many terminal columns text takes: a Chinese, Japanese or Korean name or title, or an
/// emoji, takes two a character. Hawk Notes' rows and handoffctl's tables are measured with it
/// (in characters, a row ran past the terminal's edge and a table's columns slid apart). The wide
/// ranges are Unicode's East Asian Wide and Fullwidth (UAX #11), which Swift's standard library
/// does not expose, and emoji shown as pictures; written here rather than asking the C library's
/// wcwidth, which answers by the process's locale: this module stays free of I/O and of the
/// environment. Display controls are not counted here: `terminalSafe` (DisplaySafety.swift)
/// shows them as escapes first.
extension Character {
    public var terminalColumns: Int {
        guard let first = unicodeScalars.first else { return 0 }
        // A picture: an emoji by default, or text turned into one by VS16 (❤️).
        if first.properties.isEmojiPresentation || unicodeScalars.contains("\u{FE0F}") { return 2 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: return Self.isWide(first.value) ? 2 : 1
        }
    }

    private static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            true
        default: false
        }
    }
}

extension StringProtocol {
    public var terminalColumns: Int { reduce(0) { $0 + $1.terminalColumns } }
}
