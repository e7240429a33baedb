/// How many terminal columns text takes, so that every row of the screen fits its width: a
/// Chinese, Japanese or Korean title, or an emoji, takes two columns a character, and a row
/// measured in characters ran past the edge (ncurses wraps it onto the row below, over the status
/// and key lines). The wide ranges are Unicode's East Asian Wide and Fullwidth (UAX #11), which
/// Swift's standard library does not expose, and emoji shown as pictures; written here rather than
/// asking the C library's wcwidth, which answers by the process's locale and keeps this module
/// free of I/O and of the environment.
extension Character {
    var columns: Int {
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
    var columns: Int { reduce(0) { $0 + $1.columns } }
}

/// Cuts text to `width` columns, with an ellipsis when it was longer.
func fit(_ text: String, _ width: Int) -> String {
    guard text.columns > width else { return text }
    return String(head(text, columns: width - 1)) + "…"
}

/// The longest start of `text` that takes at most `columns` columns.
func head(_ text: some StringProtocol, columns: Int) -> Substring {
    var used = 0
    var end = text.startIndex
    for c in text {
        guard used + c.columns <= columns else { break }
        used += c.columns
        end = text.index(after: end)
    }
    return Substring(text[..<end])
}

/// The longest end of `text` that takes at most `columns` columns.
func tail(_ text: String, columns: Int) -> Substring {
    var used = 0
    var start = text.endIndex
    for c in text.reversed() {
        guard used + c.columns <= columns else { break }
        used += c.columns
        start = text.index(before: start)
    }
    return text[start...]
}

/// Word wrap at `width` columns (a word longer than a row is cut across rows).
func wrap(_ text: String, width: Int) -> [String] {
    let width = max(width, 2)
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ", omittingEmptySubsequences: true) {
        if line.isEmpty {
            line = String(word)
        } else if line.columns + 1 + word.columns <= width {
            line += " " + word
        } else {
            lines.append(line)
            line = String(word)
        }
        while line.columns > width {
            let part = head(line, columns: width)
            lines.append(String(part))
            line = String(line[part.endIndex...])
        }
    }
    if !line.isEmpty { lines.append(line) }
    return lines
}
