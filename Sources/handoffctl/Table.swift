#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// Human output: aligned columns with a header, or a line saying there is nothing.
struct Table {
    let columns: [String]
    var rows: [[String]] = []

    init(_ columns: String...) { self.columns = columns }

    /// An empty cell reads as "-": a blank (an activity without a title, a peer not yet
    /// fingerprinted) shifted the eye to the next column.
    mutating func add(_ cells: String...) { rows.append(cells.map { $0.isEmpty ? "-" : $0 }) }

    func print(empty: String) {
        guard !rows.isEmpty else { return Swift.print(empty) }
        let all = [columns] + rows
        // In terminal columns: a machine named in Chinese, Japanese or Korean takes two a character.
        let widths = columns.indices.map { i in all.map { $0.indices.contains(i) ? $0[i].terminalColumns : 0 }.max() ?? 0 }
        for row in all {
            let cells = row.enumerated().map { i, cell in i == row.count - 1 ? cell : cell.padded(to: widths[i]) }
            Swift.print(cells.joined(separator: "  "))
        }
    }
}

/// "key: value" lines for one object.
func printFields(_ value: PropertyListValue?, order: [String]) {
    guard let d = value?.dictionaryValue else { return }
    let keys = order.filter { d[$0] != nil } + d.keys.filter { !order.contains($0) }.sorted()
    let width = keys.map(\.terminalColumns).max() ?? 0
    // An empty value reads as "-", as in the tables: a blank after a name looked like a fault.
    for k in keys { print(k.terminalSafe.padded(to: width) + "  " + (d[k]!.text.isEmpty ? "-" : d[k]!.text)) }
}

extension PropertyListValue {
    /// A value as a table cell.
    var text: String {
        switch self {
        case .string(let s): s.terminalSafe
        case .integer(let i): String(i)
        case .real(let r): String(r)
        case .bool(let b): b ? "yes" : "no"
        case .date(let d): tableDate(d)
        case .data(let d): "\(d.count) bytes"
        case .array(let a): a.map(\.text).joined(separator: ", ")
        case .dictionary(let d): d.keys.sorted().map { "\($0.terminalSafe)=\(d[$0]!.text)" }.joined(separator: " ")
        }
    }

    subscript(_ key: String) -> String { dictionaryValue?[key]?.text ?? "" }
}

/// A date as a table cell: to the second, in UTC as the rest of handoffctl prints times
/// ("2026-12-02 06:24:13 UTC"; the microseconds of `ISODate` are for --json and scripts).
func tableDate(_ d: Date) -> String {
    let text = ISODate.string(d)
    guard text.count >= 19, text.dropFirst(10).first == "T" else { return text }
    return text.prefix(10) + " " + text.dropFirst(11).prefix(8) + " UTC"
}

/// When something last changed, short: "12:04" today, else the date; UTC, as the rest of
/// handoffctl prints times.
func tableWhen(_ d: Date) -> String {
    let text = ISODate.string(d)
    let day = String(text.prefix(10))
    let today = String(ISODate.string(Date()).prefix(10))
    return day == today ? String(text.dropFirst(11).prefix(5)) : day
}

/// A flag as a table cell.
func yes(_ b: Bool) -> String { b ? "yes" : "no" }

extension String {
    /// Spaces after, up to `width` terminal columns.
    func padded(to width: Int) -> String { self + String(repeating: " ", count: max(0, width - terminalColumns)) }
}
