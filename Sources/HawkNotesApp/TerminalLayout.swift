import HandoffCore

// Rows cut and wrapped in terminal columns (HandoffCore's `terminalColumns`), not characters.

/// Cuts text to `width` columns, with an ellipsis when it was longer.
func fit(_ text: String, _ width: Int) -> String {
    guard text.terminalColumns > width else { return text }
    return String(head(text, columns: width - 1)) + "…"
}

/// The longest start of `text` that takes at most `columns` columns.
func head(_ text: some StringProtocol, columns: Int) -> Substring {
    var used = 0
    var end = text.startIndex
    for c in text {
        guard used + c.terminalColumns <= columns else { break }
        used += c.terminalColumns
        end = text.index(after: end)
    }
    return Substring(text[..<end])
}

/// The longest end of `text` that takes at most `columns` columns.
func tail(_ text: String, columns: Int) -> Substring {
    var used = 0
    var start = text.endIndex
    for c in text.reversed() {
        guard used + c.terminalColumns <= columns else { break }
        used += c.terminalColumns
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
        } else if line.terminalColumns + 1 + word.terminalColumns <= width {
            line += " " + word
        } else {
            lines.append(line)
            line = String(word)
        }
        while line.terminalColumns > width {
            let part = head(line, columns: width)
            lines.append(String(part))
            line = String(line[part.endIndex...])
        }
    }
    if !line.isEmpty { lines.append(line) }
    return lines
}
