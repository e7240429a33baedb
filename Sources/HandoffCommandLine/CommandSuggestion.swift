/// The command a mistyped word most likely meant (`statu` -> `status`, `peer` -> `peers`): the
/// one it starts, else the nearest by edit distance within two edits (and less than half the
/// word), unless two are as near.
enum CommandSuggestion {
    static func nearest(to word: String, among names: [String]) -> String? {
        let typed = Array(word.lowercased())
        guard !typed.isEmpty else { return nil }
        let starting = names.filter { $0.hasPrefix(word.lowercased()) }
        if starting.count == 1 { return starting[0] }
        let limit = min(2, (typed.count - 1) / 2)
        let scored = names.map { (name: $0, distance: distance(typed, Array($0))) }.filter { $0.distance <= limit }
        guard let best = scored.min(by: { $0.distance < $1.distance }) else { return nil }
        return scored.filter { $0.distance == best.distance }.count == 1 ? best.name : nil
    }

    /// Levenshtein distance, with a swap of two neighbours counted as one edit.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1) }
            }
        }
        return rows[a.count][b.count]
    }
}
