import Foundation
import GRDB
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
    public let pool: any DatabaseWriter
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
            pool = try Self.openReadOnly(path)
        } else {
            do {
                pool = try Self.open(path)
            } catch {
                aside = try Self.moveAside(path, now: now)
                logger.critical(
                    "the scene database is damaged; it was moved aside and scenes start empty",
                    metadata: ["file.damaged": "\(aside ?? path)", "error": "\(error)"])
                pool = try Self.open(path)
            }
        }
        movedAside = aside
        readOnlyReason = readOnly
    }

    /// The saved scenes of a read-only directory (an empty in-memory database if there are none).
    private static func openReadOnly(_ path: String) throws -> any DatabaseWriter {
        guard FileManager.default.fileExists(atPath: path) else {
            let q = try DatabaseQueue()
            try migrator.migrate(q)
            return q
        }
        var config = Configuration()
        config.qos = StateDatabase.queueQoS
        config.readonly = true
        return try DatabaseQueue(path: path, configuration: config)
    }

    private static func open(_ path: String) throws -> DatabasePool {
        let fd = Glibc.open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd >= 0 {
            fchmod(fd, 0o600)
            close(fd)
        }
        var config = Configuration()
        config.qos = StateDatabase.queueQoS
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // A daemon's working set, not a database server's: scenes are read once at start and
            // then written; a small page cache keeps handoffd's memory flat, and the WAL file is
            // cut back after each checkpoint.
            try db.execute(sql: "PRAGMA cache_size = -256")
            try db.execute(sql: "PRAGMA journal_size_limit = 1048576")
        }
        config.maximumReaderCount = 2
        let pool = try DatabasePool(path: path, configuration: config)
        let check = try pool.read { db in try String.fetchOne(db, sql: "PRAGMA quick_check") }
        guard check == "ok" else { throw DamagedDatabase(detail: check ?? "no answer") }
        try migrator.migrate(pool)
        return pool
    }

    struct DamagedDatabase: Error, CustomStringConvertible {
        let detail: String
        var description: String { "quick_check: \(detail)" }
    }

    /// Renames the file and its -wal and -shm companions to `<name>.damaged-<UTC time>`.
    static func moveAside(_ path: String, now: Date) throws -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let target = path + ".damaged-" + f.string(from: now)
        try FileManager.default.moveItem(atPath: path, toPath: target)
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            try? FileManager.default.moveItem(atPath: path + suffix, toPath: target + suffix)
        }
        return target
    }

    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1: scenes") { db in
            try db.create(table: "scene") { t in
                t.primaryKey("id", .text)
                // The scene's restoration activity in the canonical encoding (docs/ENCODING.md).
                t.column("restoration", .blob).notNull()
                t.column("role", .text).notNull()
                t.column("created", .double).notNull()
                t.column("updated", .double).notNull()
                t.column("discarded", .double)
                t.column("discardReason", .text)
            }
        }
        return m
    }
}

/// Scenes in the scene database; one row per scene, one transaction per save.
public final class SQLiteSceneStore: SceneStore, Sendable {
    private let db: SceneDatabase
    private let catalog: any ContentCatalog

    public init(database: SceneDatabase, catalog: any ContentCatalog) {
        db = database
        self.catalog = catalog
    }

    public func loadAll() throws -> (scenes: [StoredScene], unreadable: [String]) {
        let rows = try db.pool.read { db in try Row.fetchAll(db, sql: "SELECT * FROM scene") }
        var scenes: [StoredScene] = []
        var unreadable: [String] = []
        for row in rows {
            let id: String = row["id"]
            do {
                let activity = try UserActivity(decoding: row["restoration"] as Data, limits: StoredScene.codecLimits)
                let scene = try Scene(restoringFrom: activity, catalog: catalog)
                scenes.append(
                    StoredScene(
                        scene: scene, role: row["role"], created: Date(timeIntervalSince1970: row["created"]),
                        updated: Date(timeIntervalSince1970: row["updated"]),
                        discarded: (row["discarded"] as Double?).map(Date.init(timeIntervalSince1970:)),
                        discardReason: row["discardReason"]))
            } catch {
                unreadable.append("\(id): \(error)")
            }
        }
        return (scenes, unreadable)
    }

    public func save(_ s: StoredScene) async throws {
        if let reason = db.readOnlyReason { throw ReadOnly(description: reason) }
        let blob = try s.scene.restorationActivity().encoded(limits: StoredScene.codecLimits)
        try await db.pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO scene (id, restoration, role, created, updated, discarded, discardReason) VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET restoration = excluded.restoration, role = excluded.role, updated = excluded.updated,
                        discarded = excluded.discarded, discardReason = excluded.discardReason
                    """,
                arguments: [
                    s.scene.id.uuidString, blob, s.role, s.created.timeIntervalSince1970, s.updated.timeIntervalSince1970,
                    s.discarded?.timeIntervalSince1970, s.discardReason
                ])
        }
    }

    struct ReadOnly: Error, CustomStringConvertible { let description: String }

    public func delete(_ id: UUID) async throws {
        if let reason = db.readOnlyReason { throw ReadOnly(description: reason) }
        try await db.pool.write { db in try db.execute(sql: "DELETE FROM scene WHERE id = ?", arguments: [id.uuidString]) }
    }

    public func close() async { try? (db.pool as? DatabasePool)?.close() }

    public var readOnlyReason: String? { db.readOnlyReason }
}
