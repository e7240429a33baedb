#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One thing search can find: an activity (here or on a paired machine), a scene, or an app's
/// content. `source` groups items that are replaced together ("local", "remote:alpha", "scenes",
/// "library"); `id` is unique across sources.
public struct SearchItem: Sendable, Equatable {
    public var id: String
    public var source: String
    public var kind: String
    public var title: String
    /// Keywords (an activity's `keywords`), weighted below the title.
    public var keywords: String
    /// More text, weighted lowest (a synopsis, a description, a draft).
    public var body: String
    public var detail: String
    public var peer: String?
    public var updated: Date?

    public init(
        id: String, source: String, kind: String, title: String, keywords: String = "", body: String = "", detail: String = "",
        peer: String? = nil, updated: Date? = nil
    ) {
        (self.id, self.source, self.kind, self.title, self.keywords, self.body) = (id, source, kind, title, keywords, body)
        (self.detail, self.peer, self.updated) = (detail, peer, updated)
    }

    /// Bounds on what one item may put into the index, whatever an app or a peer sent.
    public static let maxTitleBytes = 512
    public static let maxKeywordsBytes = 2_048
    public static let maxBodyBytes = 8_192

    /// The item with its texts cut to the bounds (at a character boundary).
    public var bounded: SearchItem {
        var b = self
        b.title = Self.cut(title, Self.maxTitleBytes)
        b.keywords = Self.cut(keywords, Self.maxKeywordsBytes)
        b.body = Self.cut(body, Self.maxBodyBytes)
        b.detail = Self.cut(detail, Self.maxTitleBytes)
        return b
    }

    static func cut(_ s: String, _ limit: Int) -> String {
        guard s.utf8.count > limit else { return s }
        var out = ""
        for c in s where out.utf8.count + c.utf8.count <= limit { out.append(c) }
        return out
    }
}

/// A match, best first (`rank` is SQLite's bm25: lower is better).
public struct SearchMatch: Sendable, Equatable {
    public var item: SearchItem
    public var rank: Double
    public init(item: SearchItem, rank: Double) { (self.item, self.rank) = (item, rank) }
}

/// The search index's store. Bounded: past `capacity` items, a replace keeps the first ones of
/// the source and says how many it left out.
public protocol SearchIndex: Sendable {
    /// Replaces every item of `source` with these; returns how many were left out for room.
    @discardableResult
    func replace(source: String, with items: [SearchItem]) throws -> Int
    /// Removes every source whose name starts with `prefix` and is not in `keep`.
    func removeSources(prefix: String, keeping keep: Set<String>) throws
    func search(_ query: SearchQuery, limit: Int) throws -> [SearchMatch]
    func count() throws -> Int
}

/// What a person typed, as an FTS5 query: every word must match, each as a prefix ("bea" finds
/// Beatrice); quotes and FTS5 operators in the input are only text.
public struct SearchQuery: Sendable, Equatable {
    public let words: [String]

    public static let maxWords = 16

    public init(_ text: String) {
        // Words are what unicode61 would index: letters and digits; anything else separates.
        var words: [String] = []
        var current = ""
        for scalar in text.unicodeScalars {
            if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                current.unicodeScalars.append(scalar)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        self.words = Array(words.prefix(Self.maxWords))
    }

    public var isEmpty: Bool { words.isEmpty }

    /// Words shorter than this match titles and keywords only: one or two letters (a person
    /// typing, a desktop asking at each key) are the start of thousands of words in texts, and
    /// ranking every such match costs ten times a whole word's (docs/CONTROL.md, "Search").
    public static let shortWord = 3

    /// `"lady"* AND "bea"*`: each word quoted (nothing in it is syntax) and a prefix; a short one
    /// limited to the title and keyword columns: `{title keywords} : "be"*`.
    public var expression: String {
        words.map { w in
            let term = "\"" + w + "\"*"
            return w.count < Self.shortWord ? "{title keywords} : " + term : term
        }.joined(separator: " AND ")
    }
}
