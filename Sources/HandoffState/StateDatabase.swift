#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffLink

#if canImport(Glibc)
    import Glibc
#endif

/// handoffd's SQLite database in the state directory: WAL, synchronous=FULL (a committed
/// transaction survives power loss), file mode 0600, schema by migrations.
public final class StateDatabase: Sendable {
    public static let fileName = "handoffd.sqlite"
    public let database: SQLiteDatabase
    public let path: String

    public init(directory: URL) throws {
        path = directory.appendingPathComponent(Self.fileName).path
        try PrivateFiles.refuseLinks(PrivateFiles.sqlitePaths(path))
        // Made 0600 before SQLite opens it; SQLite gives its -wal and -shm files the same mode.
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd >= 0 {
            fchmod(fd, 0o600)
            Glibc.close(fd)
        }
        database = try SQLiteDatabase(
            path: path, label: "handoffd.state",
            setup: "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON")
        try database.migrate(Self.migrations)
    }

    public func close() { database.close() }

    /// The schema, one step per release that changed it. The identifiers are those GRDB's
    /// migrator recorded, so older databases skip what they have.
    static let migrations: [(identifier: String, sql: String)] = [
        (
            "v1: trust store",
            """
            CREATE TABLE peer (
                id TEXT PRIMARY KEY NOT NULL, publicKey BLOB NOT NULL UNIQUE, name TEXT NOT NULL, pairedAt DOUBLE NOT NULL,
                advertisingGeneration INTEGER, advertisingKey BLOB);
            CREATE TABLE ownKey (name TEXT PRIMARY KEY NOT NULL, generation INTEGER NOT NULL, key BLOB NOT NULL);
            """
        ),
        ("v2: pending unpair notices", "CREATE TABLE pendingUnpair (id TEXT PRIMARY KEY NOT NULL, publicKey BLOB NOT NULL)"),
        (
            "v3: addresses where paired peers authenticated",
            """
            CREATE TABLE peerAddress (
                peerID TEXT NOT NULL REFERENCES peer(id) ON DELETE CASCADE, address TEXT NOT NULL, seenAt DOUBLE NOT NULL,
                PRIMARY KEY (peerID, address))
            """
        ),
        (
            "v4: last-known link endpoints of paired peers",
            """
            CREATE TABLE peerEndpoint (
                peerID TEXT NOT NULL REFERENCES peer(id) ON DELETE CASCADE, host TEXT NOT NULL, port INTEGER NOT NULL,
                seenAt DOUBLE NOT NULL, PRIMARY KEY (peerID, host, port))
            """
        )
    ]
}
