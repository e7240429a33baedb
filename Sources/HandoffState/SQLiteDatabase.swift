import Dispatch
import Synchronization

/// One SQLite connection shared by a component: every use is serialized, writes run in a
/// transaction, and `writeAsync` does its work (and its fsync) on a queue of its own instead of
/// a thread of Swift's cooperative pool.
public final class SQLiteDatabase: Sendable {
    /// Used only while `closed` is locked, which serializes every use.
    nonisolated(unsafe) private let connection: SQLiteConnection
    private let closed = Mutex(false)
    private let queue: DispatchQueue

    /// Opens `path` (nil: a private in-memory database) and runs `setup` (pragmas) on it.
    public init(path: String?, readOnly: Bool = false, label: String, setup: String = "") throws {
        let c = try SQLiteConnection(path: path, readOnly: readOnly)
        if !setup.isEmpty { try c.executeScript(setup) }
        connection = c
        // Default priority: libdispatch maps user-initiated to nice -2, which a sandboxed daemon
        // may not take (each worker logged "Failed to set thread priority").
        queue = DispatchQueue(label: label, qos: .default)
    }

    private func with<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try closed.withLock { closed in
            guard !closed else { throw SQLiteError(code: 21, message: "the database is closed", sql: nil) }
            return try body(connection)
        }
    }

    public func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T { try with(body) }

    public func write<T>(_ body: (SQLiteConnection) throws -> T) throws -> T { try with { try $0.transaction(body) } }

    public func writeAsync<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try self.write(body) })
            }
        }
    }

    /// Closes the connection; later uses fail with "the database is closed".
    public func close() {
        closed.withLock { closed in
            if !closed { connection.close() }
            closed = true
        }
    }

    /// Applies the migrations not yet applied, in order, each in a transaction. Applied ones are
    /// listed in `grdb_migrations`, the table GRDB's migrator kept (handoffd used GRDB before
    /// 0.3), so a database written by an older handoffd upgrades in place.
    public func migrate(_ migrations: [(identifier: String, sql: String)]) throws {
        try write { c in
            try c.execute("CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        }
        let applied = Set(try read { c in try c.rows("SELECT identifier FROM grdb_migrations").compactMap { $0[0].string } })
        for m in migrations where !applied.contains(m.identifier) {
            try write { c in
                try c.executeScript(m.sql)
                try c.execute("INSERT INTO grdb_migrations (identifier) VALUES (?)", [m.identifier])
            }
        }
    }
}
