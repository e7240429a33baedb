#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffLink
import HandoffContent
import HandoffCore
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// The scenes' own SQLite database (scenes.sqlite in the state directory), apart from the trust
/// store so that a damaged scene file never costs the pairings. WAL and synchronous=FULL: a
/// committed save survives kill -9 and power loss. Checked at every start; a damaged file is
/// moved aside (kept, named with the time) and handoffd starts with an empty store.
public final class SceneDatabase: Sendable {
    public static let fileName = "scenes.sqlite"
    public let database: SQLiteDatabase
    public let path: String
    /// Where a damaged file was moved, if it was.
    public let movedAside: String?
    /// Set when the directory cannot be written: saved scenes are read, every save fails with this.
    public let readOnlyReason: String?

    public init(directory: URL, logger: Logger = Logger(label: "handoffd.scenes"), now: Date = Date()) throws {
        path = directory.appendingPathComponent(Self.fileName).path
        try PrivateFiles.refuseLinks(PrivateFiles.sqlitePaths(path))
        var aside: String?
        var readOnly: String?
        if access(directory.path, W_OK) != 0 || (FileManager.default.fileExists(atPath: path) && access(path, W_OK) != 0) {
            // A read-only directory (a read-only mount): keep serving what is saved; saves fail.
            readOnly =
                "the scene directory \(directory.path) is not writable (\(String(cString: strerror(errno)))); scene changes cannot be saved until it is"
            logger.error("scenes are read-only", metadata: ["scene.directory": "\(directory.path)"])
            database = try Self.openReadOnly(path)
        } else {
            do {
                database = try Self.open(path)
            } catch let error where Self.isDamage(error) {
                aside = try Self.moveAside(path, now: now)
                logger.critical(
                    "the scene database is damaged; it was moved aside and scenes start empty",
                    metadata: ["file.damaged": "\(aside ?? path)", "error": "\(error)"])
                database = try Self.open(path)
            }
        }
        movedAside = aside
        readOnlyReason = readOnly
    }

    /// The saved scenes of a read-only directory (an empty in-memory database if there are none).
    private static func openReadOnly(_ path: String) throws -> SQLiteDatabase {
        guard FileManager.default.fileExists(atPath: path) else {
            let q = try SQLiteDatabase(path: nil, label: "handoffd.scenes")
            try q.migrate(migrations)
            return q
        }
        return try SQLiteDatabase(path: path, readOnly: true, label: "handoffd.scenes")
    }

    private static func open(_ path: String) throws -> SQLiteDatabase {
        let fd = Glibc.open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd >= 0 {
            fchmod(fd, 0o600)
            close(fd)
        }
        // A daemon's working set, not a database server's: scenes are read once at start and
        // then written; a small page cache keeps handoffd's memory flat, and the WAL file is cut
        // back after each checkpoint.
        let db = try SQLiteDatabase(
            path: path, label: "handoffd.scenes",
            setup: """
                PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;
                PRAGMA cache_size = -256; PRAGMA journal_size_limit = 1048576
                """)
        let check = try db.read { try $0.value("PRAGMA quick_check")?.string }
        guard check == "ok" else {
            db.close()
            throw DamagedDatabase(detail: check ?? "no answer")
        }
        try db.migrate(migrations)
        return db
    }

    /// A file that is not a database, or a damaged one: moved aside. Anything else (a directory
    /// we may not open, a full disk) is an error to report, and the file stays where it is.
    static func isDamage(_ error: any Error) -> Bool {
        if error is DamagedDatabase { return true }
        guard let e = error as? SQLiteError else { return false }
        return e.code & 0xff == 26 || e.code & 0xff == 11  // SQLITE_NOTADB, SQLITE_CORRUPT
    }

    struct DamagedDatabase: Error, CustomStringConvertible {
        let detail: String
        var description: String { "quick_check: \(detail)" }
    }

    /// Renames the file and its -wal and -shm companions to `<name>.damaged-<UTC time>`.
    static func moveAside(_ path: String, now: Date) throws -> String {
        let target = path + ".damaged-" + utcStamp(now)
        try FileManager.default.moveItem(atPath: path, toPath: target)
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            try? FileManager.default.moveItem(atPath: path + suffix, toPath: target + suffix)
        }
        return target
    }

    /// `yyyyMMdd'T'HHmmss'Z'` in UTC, from the C library (no calendar or locale needed).
    static func utcStamp(_ date: Date) -> String {
        var t = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&t, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }

    static let migrations: [(identifier: String, sql: String)] = [
        (
            "v1: scenes",
            // The scene's restoration activity in the canonical encoding (docs/ENCODING.md).
            """
            CREATE TABLE scene (
                id TEXT PRIMARY KEY NOT NULL, restoration BLOB NOT NULL, role TEXT NOT NULL, created DOUBLE NOT NULL,
                updated DOUBLE NOT NULL, discarded DOUBLE, discardReason TEXT)
            """
        )
    ]
}

/// Scenes in the scene database; one row per scene, one transaction per save.
public final class SQLiteSceneStore: SceneStore, Sendable {
    private let db: SceneDatabase

    public init(database: SceneDatabase) {
        db = database
    }

    public func loadAll() throws -> (scenes: [StoredScene], unreadable: [String]) {
        let rows = try db.database.read { try $0.rows("SELECT * FROM scene") }
        var scenes: [StoredScene] = []
        var unreadable: [String] = []
        for row in rows {
            let id = row["id"].string ?? "(no id)"
            do {
                guard let blob = row["restoration"].bytes, let role = row["role"].string, let created = row["created"].double,
                    let updated = row["updated"].double
                else { throw SceneDatabase.DamagedDatabase(detail: "a scene row lacks a column") }
                let activity = try UserActivity(decoding: Data(blob), limits: StoredScene.codecLimits)
                let scene = try Scene(restoringFrom: activity)
                scenes.append(
                    StoredScene(
                        scene: scene, role: role, created: Date(timeIntervalSince1970: created),
                        updated: Date(timeIntervalSince1970: updated),
                        discarded: row["discarded"].double.map(Date.init(timeIntervalSince1970:)),
                        discardReason: row["discardReason"].string))
            } catch {
                unreadable.append("\(id): \(error)")
            }
        }
        return (scenes, unreadable)
    }

    public func save(_ s: StoredScene) async throws {
        if let reason = db.readOnlyReason { throw ReadOnly(description: reason) }
        let blob = [UInt8](try s.scene.restorationActivity().encoded(limits: StoredScene.codecLimits))
        let arguments: [SQLValue] = [
            .text(s.scene.id.canonicalString), .blob(blob), .text(s.role), .real(s.created.timeIntervalSince1970),
            .real(s.updated.timeIntervalSince1970), s.discarded.map { .real($0.timeIntervalSince1970) } ?? .null,
            s.discardReason.map { .text($0) } ?? .null
        ]
        try await db.database.writeAsync { db in
            try db.execute(
                """
                INSERT INTO scene (id, restoration, role, created, updated, discarded, discardReason) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET restoration = excluded.restoration, role = excluded.role, updated = excluded.updated,
                    discarded = excluded.discarded, discardReason = excluded.discardReason
                """, arguments)
        }
    }

    struct ReadOnly: Error, CustomStringConvertible { let description: String }

    public func delete(_ id: UUID) async throws {
        if let reason = db.readOnlyReason { throw ReadOnly(description: reason) }
        let key = id.canonicalString
        try await db.database.writeAsync { db in try db.execute("DELETE FROM scene WHERE id = ?", [key]) }
    }

    public func close() async { db.database.close() }

    public var readOnlyReason: String? { db.readOnlyReason }
}
