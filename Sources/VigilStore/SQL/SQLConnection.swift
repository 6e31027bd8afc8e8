/// One connection to a SQL database, used by one thread at a time. `SQLStore` writes each
/// statement once, in SQL that SQLite and PostgreSQL both accept, with `?1`-style parameters;
/// a connection adapts what differs.
protocol SQLConnection: AnyObject {
    /// Runs SQL without parameters or results (several statements allowed).
    func execute(_ sql: String) throws(StoreError)
    /// Runs one statement with `values` bound to `?1...`; returns its rows.
    @discardableResult
    func query(_ sql: String, _ values: [SQLValue]) throws(StoreError) -> [[SQLValue]]
    /// Rows changed by the last statement.
    var changes: Int { get }
    /// The statement that opens a write transaction.
    var beginStatement: String { get }
    /// Run first in each migration transaction, so that nodes starting together apply each step
    /// once (nil where the write transaction already excludes them).
    var migrationLockStatement: String? { get }
    /// A migration step's SQL in this database's dialect.
    func adapting(schema sql: String) -> String
}

extension SQLConnection {
    /// Runs one statement without parameters; returns its rows.
    @discardableResult
    func query(_ sql: String) throws(StoreError) -> [[SQLValue]] { try query(sql, []) }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute(beginStatement)
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }
}

/// Where `SQLStore` gets its connections: SQLite's one writer and its readers, or a pool of
/// PostgreSQL connections.
protocol SQLDatabase: Sendable {
    /// Runs `body` on a connection that may write.
    func writing<T>(_ body: (any SQLConnection) throws -> T) throws(StoreError) -> T
    /// Runs `body` on a connection for reads (the writer where there is no other).
    func reading<T>(_ body: (any SQLConnection) throws -> T) throws(StoreError) -> T
    /// `Store.reclaim()` in this database's terms.
    func reclaim() throws(StoreError) -> Bool
}

extension SQLDatabase {
    /// `body`'s errors as `StoreError`.
    static func typed<T>(_ body: () throws -> T) throws(StoreError) -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch {
            throw .query("\(error)")
        }
    }
}
