import Foundation
import HandoffAdvert
import HandoffCore
import HandoffTestSupport
import Testing
@testable import HandoffLink
@testable import HandoffState

/// The SQLite layer handoffd writes its state through (SQLite's C API, since GRDB was dropped).
@Suite struct SQLiteConnectionTests {
    @Test func everyKindOfValueComesBackAsWritten() throws {
        let c = try SQLiteConnection(path: nil)
        try c.executeScript("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n TEXT)")
        let blob: [UInt8] = [0, 1, 2, 255, 0]
        try c.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?)", [Int64.min, 0.25, "Zoë 🦅\u{0}x", blob, String?.none])
        let row = try #require(try c.rows("SELECT * FROM t").first)
        #expect(row["i"] == .integer(Int64.min) && row["r"] == .real(0.25) && row["b"] == .blob(blob) && row["n"] == .null)
        #expect(row["s"].string == "Zoë 🦅")  // text is read up to its first NUL, as SQLite's C string
        #expect(row["missing"] == .null && row[9] == .null)
        try c.execute("INSERT INTO t (b) VALUES (?)", [[UInt8]()])
        #expect(try c.value("SELECT count(*) FROM t WHERE b IS NOT NULL") == .integer(2))
    }

    @Test func aTransactionThatThrowsLeavesNothing() throws {
        let db = try SQLiteDatabase(path: nil, label: "test")
        try db.write { try $0.executeScript("CREATE TABLE t (x INTEGER)") }
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try db.write { c in
                try c.execute("INSERT INTO t VALUES (1)")
                throw Stop()
            }
        }
        #expect(try db.read { try $0.value("SELECT count(*) FROM t") } == .integer(0))
        let e = #expect(throws: SQLiteError.self) { try db.read { try $0.execute("INSERT INTO nowhere VALUES (1)") } }
        #expect(e?.description.contains("no such table: nowhere") == true)
        db.close()
        #expect(throws: SQLiteError.self) { try db.read { try $0.value("SELECT 1") } }
    }

    @Test func migrationsRunOnceEach() throws {
        let db = try SQLiteDatabase(path: nil, label: "test")
        let steps: [(identifier: String, sql: String)] = [("one", "CREATE TABLE a (x)"), ("two", "CREATE TABLE b (x)")]
        try db.migrate(steps)
        try db.migrate(steps)  // a second start: nothing to do, no "table already exists"
        #expect(try db.read { try $0.value("SELECT count(*) FROM grdb_migrations") } == .integer(2))
    }

    @Test func theMovedAsideNameIsTheUTCTime() {
        #expect(SceneDatabase.utcStamp(Date(timeIntervalSince1970: 1_800_000_007.9)) == "20270115T080007Z")
        #expect(SceneDatabase.utcStamp(Date(timeIntervalSince1970: 0)) == "19700101T000000Z")
    }
}

/// handoffd 0.2 wrote its databases through GRDB; 0.3 opens them in place: the migrations GRDB
/// recorded are skipped, what was stored is read, and new writes land. The fixtures are files
/// written by a 0.2 handoffd at its first start (plus one peer row added with python3's sqlite3).
@Suite struct GRDBDatabaseUpgradeTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/grdb-0.2")

    @Test func aTrustStoreWrittenByGRDBOpensAndTakesNewPeers() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent(StateDatabase.fileName).path
        try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent("handoffd.sqlite").path, toPath: path)
        let bob = IdentityKey().identity
        do {
            let store = try SQLiteTrustStore(database: try StateDatabase(directory: dir))
            let old = try #require(try store.peers().first)
            #expect(old.name == "Desk made by GRDB" && old.identity.publicKey == Array(0..<32))
            #expect(old.pairedAt == Date(timeIntervalSince1970: 1_700_000_000.5) && old.advertisingKey?.generation == 3)
            try store.pin(TrustedPeer(identity: bob, name: "Bob", pairedAt: Date(timeIntervalSince1970: 5), advertisingKey: nil))
        }
        let store = try SQLiteTrustStore(database: try StateDatabase(directory: dir))
        #expect(try store.peers().map(\.name) == ["Bob", "Desk made by GRDB"])
    }

    /// The connection that writes is the one asked (one connection per database): under GRDB a
    /// reader connection said FULL while scene commits were not synced (24 fdatasync in a whole
    /// bench-continue run, 2,032 now, strace -c).
    @Test func bothDatabasesCommitWithFullSyncInWAL() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let state = try StateDatabase(directory: dir)
        let scenes = try SceneDatabase(directory: dir)
        for db in [state.database, scenes.database] {
            #expect(try db.read { try $0.value("PRAGMA journal_mode")?.string } == "wal")
            #expect(try db.read { try $0.value("PRAGMA synchronous")?.int64 } == 2)
        }
    }

    @Test func aSceneDatabaseWrittenByGRDBPassesItsCheck() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(
            atPath: Self.fixtures.appendingPathComponent("scenes.sqlite").path, toPath: dir.appendingPathComponent(SceneDatabase.fileName).path)
        let db = try SceneDatabase(directory: dir)
        #expect(db.movedAside == nil && db.readOnlyReason == nil)
        #expect(try db.database.read { try $0.value("SELECT count(*) FROM scene") } == .integer(0))
    }
}

@Suite struct SQLiteReadOnlyTests {
    @Test func pathsAreEscapedForTheURI() {
        #expect(SQLiteConnection.uriEscaped("/var/lib/handoffd/scenes.sqlite") == "/var/lib/handoffd/scenes.sqlite")
        #expect(SQLiteConnection.uriEscaped("/tmp/a b?c#d%e/é") == "/tmp/a%20b%3Fc%23d%25e/%C3%A9")
    }

    @Test func aWALDatabaseWithoutItsSharedMemoryFileIsReadReadOnly() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("odd name?.sqlite").path
        do {
            let db = try SQLiteDatabase(path: path, label: "test", setup: "PRAGMA journal_mode = WAL")
            try db.write { try $0.executeScript("CREATE TABLE t (x); INSERT INTO t VALUES (42)") }
            db.close()  // the last connection: SQLite checkpoints and removes -wal and -shm
        }
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
        let ro = try SQLiteDatabase(path: path, readOnly: true, label: "test")
        #expect(try ro.read { try $0.value("SELECT x FROM t") } == .integer(42))
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
        #expect(throws: SQLiteError.self) { try ro.write { try $0.execute("INSERT INTO t VALUES (1)") } }
    }
}

/// systemd's DynamicUser= makes /var/lib/handoffd a link to /var/lib/private/handoffd: the
/// databases open through it (SQLITE_OPEN_NOFOLLOW refused that, found by test-systemd.sh).
@Suite struct LinkedStateDirectoryTests {
    @Test func databasesOpenInADirectoryReachedThroughALink() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let real = dir.appendingPathComponent("private/handoffd")
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
        let link = dir.appendingPathComponent("handoffd")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
        _ = try SQLiteTrustStore(database: try StateDatabase(directory: link))
        let scenes = try SceneDatabase(directory: link)
        #expect(scenes.movedAside == nil && scenes.readOnlyReason == nil)
        #expect(FileManager.default.fileExists(atPath: real.appendingPathComponent(StateDatabase.fileName).path))
    }
}
