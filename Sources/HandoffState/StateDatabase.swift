import Foundation
import GRDB
import HandoffLink

#if canImport(Glibc)
    import Glibc
#endif

/// handoffd's SQLite database in the state directory: WAL, synchronous=FULL (a committed
/// transaction survives power loss), file mode 0600, schema by migrations.
public final class StateDatabase: Sendable {
    public static let fileName = "handoffd.sqlite"
    /// GRDB's queues default to user-initiated, which libdispatch on Linux maps to nice -2: a
    /// sandboxed daemon may not raise its priority, and each such worker thread logged "Failed to
    /// set thread priority". A daemon's database work is default priority anyway.
    static let queueQoS: DispatchQoS = .default
    public let pool: DatabasePool
    public let path: String

    public init(directory: URL) throws {
        path = directory.appendingPathComponent(Self.fileName).path
        try PrivateFiles.refuseLinks(PrivateFiles.sqlitePaths(path))
        // Made 0600 before SQLite opens it; SQLite gives its -wal and -shm files the same mode.
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd >= 0 {
            fchmod(fd, 0o600)
            close(fd)
        }
        var config = Configuration()
        config.qos = StateDatabase.queueQoS
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        pool = try DatabasePool(path: path, configuration: config)
        try Self.migrator.migrate(pool)
    }

    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1: trust store") { db in
            try db.create(table: "peer") { t in
                t.primaryKey("id", .text)
                t.column("publicKey", .blob).notNull().unique()
                t.column("name", .text).notNull()
                t.column("pairedAt", .double).notNull()
                t.column("advertisingGeneration", .integer)
                t.column("advertisingKey", .blob)
            }
            try db.create(table: "ownKey") { t in
                t.primaryKey("name", .text)
                t.column("generation", .integer).notNull()
                t.column("key", .blob).notNull()
            }
        }
        m.registerMigration("v2: pending unpair notices") { db in
            try db.create(table: "pendingUnpair") { t in
                t.primaryKey("id", .text)
                t.column("publicKey", .blob).notNull()
            }
        }
        m.registerMigration("v3: addresses where paired peers authenticated") { db in
            try db.create(table: "peerAddress") { t in
                t.column("peerID", .text).notNull().references("peer", onDelete: .cascade)
                t.column("address", .text).notNull()
                t.column("seenAt", .double).notNull()
                t.primaryKey(["peerID", "address"])
            }
        }
        m.registerMigration("v4: last-known link endpoints of paired peers") { db in
            try db.create(table: "peerEndpoint") { t in
                t.column("peerID", .text).notNull().references("peer", onDelete: .cascade)
                t.column("host", .text).notNull()
                t.column("port", .integer).notNull()
                t.column("seenAt", .double).notNull()
                t.primaryKey(["peerID", "host", "port"])
            }
        }
        return m
    }
}
