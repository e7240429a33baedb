#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffContent
import Synchronization

/// The search index: SQLite FTS5 in memory (it is rebuilt from its sources at every start, and
/// nothing in it is only here). Titles weigh most, then keywords, then the body (bm25 weights
/// 10, 5, 1); `unicode61 remove_diacritics 2` folds case and diacritics; prefix indexes of 1-3
/// characters make prefix queries cheap. Bounded by `capacity` items.
public final class SQLiteSearchIndex: SearchIndex {
    /// Opened, its tables made, at first use: making the FTS5 table took 1.1 ms of a restarted
    /// daemon's start, before its first dial (docs/ARCHITECTURE.md, "Presence"), and handoffd
    /// fills the index only once its first dials have ended.
    private let opened = Mutex<SQLiteDatabase?>(nil)
    public let capacity: Int

    public init(capacity: Int = 20_000) { self.capacity = capacity }

    private static let schema = """
        CREATE VIRTUAL TABLE search USING fts5(
            title, keywords, body,
            id UNINDEXED, source UNINDEXED, kind UNINDEXED, detail UNINDEXED, peer UNINDEXED, updated UNINDEXED,
            tokenize = 'unicode61 remove_diacritics 2', prefix = '1 2 3');
        CREATE TABLE owner(rowid INTEGER PRIMARY KEY, source TEXT NOT NULL, id TEXT NOT NULL UNIQUE);
        CREATE INDEX owner_source ON owner(source);
        """

    /// The database, opened now if it is not yet.
    private var queue: SQLiteDatabase {
        get throws {
            try opened.withLock { opened in
                if let opened { return opened }
                let made = try SQLiteDatabase(path: nil, label: "handoffd.search")
                try made.write { try $0.executeScript(Self.schema) }
                opened = made
                return made
            }
        }
    }

    @discardableResult
    public func replace(source: String, with items: [SearchItem]) throws -> Int {
        try queue.write { db in
            try Self.delete(db, where: "source = ?", [source])
            let room = max(0, capacity - Int(try db.value("SELECT count(*) FROM owner")?.int64 ?? 0))
            var seen = Set<String>()
            var added = 0
            for item in items {
                // An id is unique across sources: a newer item with it replaces the older one.
                guard seen.insert(item.id).inserted, added < room else { continue }
                try Self.delete(db, where: "id = ?", [item.id])
                let b = item.bounded
                try db.execute("INSERT INTO owner(source, id) VALUES (?, ?)", [source, b.id])
                try db.execute(
                    """
                    INSERT INTO search(rowid, title, keywords, body, id, source, kind, detail, peer, updated)
                    VALUES (last_insert_rowid(), ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [b.title, b.keywords, b.body, b.id, source, b.kind, b.detail, b.peer, b.updated?.timeIntervalSince1970])
                added += 1
            }
            return seen.count - added
        }
    }

    private static func delete(_ db: SQLiteConnection, where condition: String, _ arguments: [any SQLArgument]) throws {
        try db.execute("DELETE FROM search WHERE rowid IN (SELECT rowid FROM owner WHERE \(condition))", arguments)
        try db.execute("DELETE FROM owner WHERE \(condition)", arguments)
    }

    public func removeSources(prefix: String, keeping keep: Set<String>) throws {
        try queue.write { db in
            let sources = try db.rows("SELECT DISTINCT source FROM owner").compactMap { $0[0].string }
            for s in sources where s.hasPrefix(prefix) && !keep.contains(s) { try Self.delete(db, where: "source = ?", [s]) }
        }
    }

    public func search(_ query: SearchQuery, limit: Int) throws -> [SearchMatch] {
        guard !query.isEmpty else { return [] }
        return try queue.read { db in
            let rows = try db.rows(
                """
                SELECT id, source, kind, title, detail, peer, updated, bm25(search, 10.0, 5.0, 1.0) AS rank
                FROM search WHERE search MATCH ? ORDER BY rank LIMIT ?
                """, [query.expression, limit])
            return rows.map { r in
                SearchMatch(
                    item: SearchItem(
                        id: r["id"].string ?? "", source: r["source"].string ?? "", kind: r["kind"].string ?? "",
                        title: r["title"].string ?? "", detail: r["detail"].string ?? "", peer: r["peer"].string,
                        updated: r["updated"].double.map { Date(timeIntervalSince1970: $0) }),
                    rank: r["rank"].double ?? 0)
            }
        }
    }

    public func count() throws -> Int { try queue.read { Int(try $0.value("SELECT count(*) FROM owner")?.int64 ?? 0) } }
}
