/// The known key a misspelt one most likely meant, for the unknown-key error: a person who wrote
/// `activty_types` is better told `activity_types` than sent to read the shipped file.
enum NearestKey {
    /// The known key closest to `name` in edits (a letter added, dropped, changed, or two
    /// neighbours swapped), if it is close enough to be a slip: at most one edit in four letters,
    /// three at most. Ties go to the first in alphabetical order, so the message is stable.
    static func to(_ name: String, among known: Set<String>) -> String? {
        let limit = max(1, min(3, name.count / 4))
        var best: (key: String, distance: Int)?
        for key in known.sorted() {
            let d = distance(Array(name.utf8), Array(key.utf8))
            if d <= limit, d < (best?.distance ?? .max) { best = (key, d) }
        }
        return best?.key
    }

    /// Optimal string alignment distance (Damerau-Levenshtein without repeated edits of a
    /// substring): keys are short ASCII, so three rows of bytes do.
    static func distance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { current[j] = min(current[j], before[j - 2] + 1) }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
