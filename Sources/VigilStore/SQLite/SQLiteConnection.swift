import CSQLite
import Foundation

/// One SQLite connection (WAL, foreign keys on, secure delete, busy timeout), used by one
/// thread at a time.
///
/// Owns its `sqlite3*` from `init` to `deinit`; not Sendable: `SQLiteDatabase` serialises access.
final class SQLiteConnection: SQLConnection {
    private var handle: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]   // prepared once per SQL text

    /// Opens (creating, unless `readOnly`) the database file at `path` (":memory:" for a private one).
    init(path: String, readOnly: Bool = false) throws(StoreError) {
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(path, &db, flags, nil) == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            throw .unavailable("\(path): \(message)")
        }
        handle = db
        sqlite3_busy_timeout(db, 5000)
        guard !readOnly else { return }
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = NORMAL")
        try execute("PRAGMA foreign_keys = ON")
        // Deleted rows and the old versions of changed ones are overwritten with zeros, in the
        // pages they leave: erased personal data is not left in free space (`reclaim` then
        // moves those pages from the log into the file).
        try execute("PRAGMA secure_delete = ON")
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close(handle)
    }

    func execute(_ sql: String) throws(StoreError) {
        var error: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &error) == SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(error)
            throw .query(message)
        }
    }

    @discardableResult
    func query(_ sql: String, _ values: [SQLValue]) throws(StoreError) -> [[SQLValue]] {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (i, value) in values.enumerated() {
            let index = Int32(i + 1)
            switch value {
            case .null: sqlite3_bind_null(statement, index)
            case .integer(let v): sqlite3_bind_int64(statement, index, v)
            case .real(let v): sqlite3_bind_double(statement, index, v)
            case .text(let v): sqlite3_bind_text(statement, index, v, -1, SQLITE_TRANSIENT)
            case .blob(let v): _ = v.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), SQLITE_TRANSIENT) }
            }
        }
        var rows: [[SQLValue]] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else {
                let message = String(cString: sqlite3_errmsg(handle))
                if step == SQLITE_CONSTRAINT { throw .conflict(message) }
                throw .query(message)
            }
            rows.append((0..<sqlite3_column_count(statement)).map { column(statement, $0) })
        }
        return rows
    }

    var changes: Int { Int(sqlite3_changes(handle)) }

    let beginStatement = "BEGIN IMMEDIATE"
    let migrationLockStatement: String? = nil
    func adapting(schema sql: String) -> String { sql }

    private func prepared(_ sql: String) throws(StoreError) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw .query("\(String(cString: sqlite3_errmsg(handle))) in: \(sql)")
        }
        statements[sql] = statement
        return statement
    }

    private func column(_ statement: OpaquePointer, _ i: Int32) -> SQLValue {
        switch sqlite3_column_type(statement, i) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, i))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, i))
        case SQLITE_TEXT: return .text(String(cString: sqlite3_column_text(statement, i)))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, i))
            guard count > 0, let bytes = sqlite3_column_blob(statement, i) else { return .blob([]) }
            return .blob([UInt8](UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }
}

/// SQLite wants this sentinel for "copy the bound bytes now".
private let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
