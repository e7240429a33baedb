import Foundation
import GRDB
import HandoffContent

/// The search index: SQLite FTS5 in memory (it is rebuilt from its sources at every start, and
/// nothing in it is only here). Titles weigh most, then keywords, then the body (bm25 weights
/// 10, 5, 1); `unicode61 remove_diacritics 2` folds case and diacritics; prefix indexes of 1-3
/// characters make prefix queries cheap. Bounded by `capacity` items.
public final class SQLiteSearchIndex: SearchIndex {
    private let queue: DatabaseQueue
    public let capacity: Int

    public init(capacity: Int = 20_000) throws {
        self.capacity = capacity
        var config = Configuration()
        config.label = "handoffd.search"
        queue = try DatabaseQueue(configuration: config)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE VIRTUAL TABLE search USING fts5(
                        title, keywords, body,
                        id UNINDEXED, source UNINDEXED, kind UNINDEXED, detail UNINDEXED, peer UNINDEXED, updated UNINDEXED,
                        tokenize = 'unicode61 remove_diacritics 2', prefix = '1 2 3');
                    CREATE TABLE owner(rowid INTEGER PRIMARY KEY, source TEXT NOT NULL, id TEXT NOT NULL UNIQUE);
                    CREATE INDEX owner_source ON owner(source);
                    """)
        }
    }

    @discardableResult
    public func replace(source: String, with items: [SearchItem]) throws -> Int {
        try queue.write { db in
            try Self.delete(db, where: "source = ?", [source])
            let room = max(0, capacity - (try Int.fetchOne(db, sql: "SELECT count(*) FROM owner") ?? 0))
            var seen = Set<String>()
            var added = 0
            for item in items {
                // An id is unique across sources: a newer item with it replaces the older one.
                guard seen.insert(item.id).inserted, added < room else { continue }
                try Self.delete(db, where: "id = ?", [item.id])
                let b = item.bounded
                try db.execute(
                    sql: "INSERT INTO owner(source, id) VALUES (?, ?)", arguments: [source, b.id])
                try db.execute(
                    sql: """
                        INSERT INTO search(rowid, title, keywords, body, id, source, kind, detail, peer, updated)
                        VALUES (last_insert_rowid(), ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [b.title, b.keywords, b.body, b.id, source, b.kind, b.detail, b.peer, b.updated?.timeIntervalSince1970])
                added += 1
            }
            return seen.count - added
        }
    }

    private static func delete(_ db: Database, where condition: String, _ arguments: StatementArguments) throws {
        try db.execute(sql: "DELETE FROM search WHERE rowid IN (SELECT rowid FROM owner WHERE \(condition))", arguments: arguments)
        try db.execute(sql: "DELETE FROM owner WHERE \(condition)", arguments: arguments)
    }

    public func removeSources(prefix: String, keeping keep: Set<String>) throws {
        try queue.write { db in
            let sources = try String.fetchAll(db, sql: "SELECT DISTINCT source FROM owner")
            for s in sources where s.hasPrefix(prefix) && !keep.contains(s) { try Self.delete(db, where: "source = ?", [s]) }
        }
    }

    public func search(_ query: SearchQuery, limit: Int) throws -> [SearchMatch] {
        guard !query.isEmpty else { return [] }
        return try queue.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, source, kind, title, detail, peer, updated, bm25(search, 10.0, 5.0, 1.0) AS rank
                    FROM search WHERE search MATCH ? ORDER BY rank LIMIT ?
                    """, arguments: [query.expression, limit])
            return rows.map { r in
                let updated: Double? = r["updated"]
                return SearchMatch(
                    item: SearchItem(
                        id: r["id"], source: r["source"], kind: r["kind"], title: r["title"], detail: r["detail"], peer: r["peer"],
                        updated: updated.map { Date(timeIntervalSince1970: $0) }),
                    rank: r["rank"])
            }
        }
    }

    public func count() throws -> Int { try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM owner") ?? 0 } }
}
