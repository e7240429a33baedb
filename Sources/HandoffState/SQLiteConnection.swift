import HandoffCore
import CSQLite

/// A value as SQLite stores it.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    public var string: String? { if case .text(let s) = self { s } else { nil } }
    public var int64: Int64? { if case .integer(let i) = self { i } else { nil } }
    /// A REAL column may hold an integer when the value was whole (SQLite's affinity).
    public var double: Double? {
        switch self {
        case .real(let d): d
        case .integer(let i): Double(i)
        default: nil
        }
    }
    public var bytes: [UInt8]? { if case .blob(let b) = self { b } else { nil } }
}

/// What a statement's `?` may be bound to.
public protocol SQLArgument { var sqlValue: SQLValue { get } }
extension String: SQLArgument { public var sqlValue: SQLValue { .text(self) } }
extension Int: SQLArgument { public var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Int64: SQLArgument { public var sqlValue: SQLValue { .integer(self) } }
extension Double: SQLArgument { public var sqlValue: SQLValue { .real(self) } }
extension Array: SQLArgument where Element == UInt8 { public var sqlValue: SQLValue { .blob(self) } }
extension PeerID: SQLArgument { public var sqlValue: SQLValue { .text(rawValue) } }
extension Optional: SQLArgument where Wrapped: SQLArgument { public var sqlValue: SQLValue { self?.sqlValue ?? .null } }

/// One result row: values by column name.
public struct SQLRow: Sendable {
    let columns: [String]
    let values: [SQLValue]
    public subscript(_ name: String) -> SQLValue {
        guard let i = columns.firstIndex(of: name) else { return .null }
        return values[i]
    }
    public subscript(_ index: Int) -> SQLValue { index < values.count ? values[index] : .null }
}

/// An SQLite error with the statement it came from.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    public let code: Int32
    public let message: String
    public let sql: String?
    public var description: String { "SQLite error \(code): \(message)" + (sql.map { " (in \($0))" } ?? "") }
}

/// One connection through SQLite's C API. Not thread-safe: `SQLiteDatabase` serializes its use.
///
/// Written here rather than through GRDB (docs/ARCHITECTURE.md, "Foundation"): GRDB imports
/// Foundation, which links ICU and its 30 MB of data into handoffd; the daemon needs a handful of
/// statements, a transaction and a migration list.
public final class SQLiteConnection {
    private var handle: OpaquePointer?

    /// `path` nil: a private in-memory database. `readOnly`: a file on read-only storage, opened
    /// immutable: SQLite cannot read a WAL database read-only without its -shm file, which a
    /// read-only directory cannot get (a clean stop removes it).
    public init(path: String?, readOnly: Bool = false) throws(SQLiteError) {
        // Not SQLITE_OPEN_NOFOLLOW: it refuses a link anywhere in the path, and systemd's
        // DynamicUser= makes /var/lib/handoffd one. Links at the files themselves are refused
        // before (PrivateFiles.refuseLinks).
        var flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        var name = path ?? ":memory:"
        if readOnly, let path {
            flags |= SQLITE_OPEN_URI
            name = "file:" + Self.uriEscaped(path) + "?immutable=1"
        }
        let rc = sqlite3_open_v2(name, &handle, flags, nil)
        guard rc == SQLITE_OK else {
            let error = SQLiteError(code: rc, message: handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory", sql: nil)
            sqlite3_close_v2(handle)
            handle = nil
            throw error
        }
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit { close() }

    /// A path as the path of a `file:` URI: the bytes a URI gives meaning to, percent-encoded.
    static func uriEscaped(_ path: String) -> String {
        var out = ""
        for b in path.utf8 {
            if b == UInt8(ascii: "%") || b == UInt8(ascii: "?") || b == UInt8(ascii: "#") || b < 0x21 || b >= 0x7f {
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%" + String(decoding: [hex[Int(b >> 4)], hex[Int(b & 15)]], as: UTF8.self)
            } else {
                out.append(Character(Unicode.Scalar(b)))
            }
        }
        return out
    }

    public func close() {
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    private func error(_ rc: Int32, _ sql: String?) -> SQLiteError {
        SQLiteError(code: rc, message: handle.map { String(cString: sqlite3_errmsg($0)) } ?? "the database is closed", sql: sql)
    }

    /// Runs one or more statements without arguments (a schema, a pragma list).
    public func executeScript(_ sql: String) throws(SQLiteError) {
        guard let handle else { throw error(SQLITE_MISUSE, sql) }
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(rc, sql) }
    }

    /// Runs one statement with its arguments, ignoring any rows.
    public func execute(_ sql: String, _ arguments: [any SQLArgument] = []) throws(SQLiteError) {
        try run(sql, arguments) { _ in }
    }

    /// Every row of one statement.
    public func rows(_ sql: String, _ arguments: [any SQLArgument] = []) throws(SQLiteError) -> [SQLRow] {
        var rows: [SQLRow] = []
        try run(sql, arguments) { rows.append($0) }
        return rows
    }

    /// The first column of the first row, if there is one.
    public func value(_ sql: String, _ arguments: [any SQLArgument] = []) throws(SQLiteError) -> SQLValue? {
        try rows(sql, arguments).first?[0]
    }

    /// Runs `body` in one transaction (BEGIN IMMEDIATE: the write lock is taken at once), rolled
    /// back if it throws.
    public func transaction<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try executeScript("BEGIN IMMEDIATE")
        do {
            let result = try body(self)
            try executeScript("COMMIT")
            return result
        } catch {
            try? executeScript("ROLLBACK")
            throw error
        }
    }

    private func run(_ sql: String, _ arguments: [any SQLArgument], _ each: (SQLRow) -> Void) throws(SQLiteError) {
        guard let handle else { throw error(SQLITE_MISUSE, sql) }
        var statement: OpaquePointer?
        var rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw error(rc, sql) }
        defer { sqlite3_finalize(statement) }
        for (i, argument) in arguments.enumerated() {
            let index = Int32(i + 1)
            switch argument.sqlValue {
            case .null: rc = sqlite3_bind_null(statement, index)
            case .integer(let v): rc = sqlite3_bind_int64(statement, index, v)
            case .real(let v): rc = sqlite3_bind_double(statement, index, v)
            case .text(let v): rc = sqlite3_bind_text(statement, index, v, -1, csqlite_transient())
            case .blob(let v):
                rc = v.withUnsafeBytes { sqlite3_bind_blob64(statement, index, $0.baseAddress, sqlite3_uint64($0.count), csqlite_transient()) }
            }
            guard rc == SQLITE_OK else { throw error(rc, sql) }
        }
        let count = sqlite3_column_count(statement)
        var columns: [String]?
        while true {
            rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_ROW else { throw error(rc, sql) }
            let names = columns ?? (0..<count).map { String(cString: sqlite3_column_name(statement, $0)) }
            columns = names
            each(SQLRow(columns: names, values: (0..<count).map { Self.column(statement, $0) }))
        }
    }

    private static func column(_ statement: OpaquePointer, _ i: Int32) -> SQLValue {
        switch sqlite3_column_type(statement, i) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, i))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, i))
        case SQLITE_TEXT: return .text(String(cString: sqlite3_column_text(statement, i)))
        case SQLITE_BLOB:
            let n = Int(sqlite3_column_bytes(statement, i))
            guard n > 0, let p = sqlite3_column_blob(statement, i) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: p, count: n)))
        default: return .null
        }
    }
}

extension SQLValue: SQLArgument { public var sqlValue: SQLValue { self } }
