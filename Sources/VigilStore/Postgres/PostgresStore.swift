import Foundation

/// The store for deployments of several nodes: PostgreSQL through libpq, with the same schema,
/// migrations, statements and transactions as `SQLiteStore`. Each node keeps a pool of
/// connections; migrations run at start under an advisory lock, so nodes starting together
/// apply each step once.
// @unchecked: adds no state to `SQLStore`.
public final class PostgresStore: SQLStore, @unchecked Sendable {
    /// Connects to `url` (`postgres://user@host/db`, or libpq's `key=value` form) with up to
    /// `connections` connections and applies pending migrations.
    public init(url: String, connections: Int = 8) throws(StoreError) {
        try super.init(database: PostgresDatabase(url: url, size: connections))
    }
}

/// A fixed pool of connections, opened as they are first needed; a caller waits for a free one.
// @unchecked: `idle` and `opened` are only touched inside `condition`'s lock; a connection taken
// from `idle` is used by that one caller until it is put back.
final class PostgresDatabase: SQLDatabase, @unchecked Sendable {
    private let url: String
    private let size: Int
    private let condition = NSCondition()
    private var idle: [PostgresConnection] = []
    private var opened = 0

    /// Opens the first connection now, so that a wrong URL fails at start.
    init(url: String, size: Int) throws(StoreError) {
        self.url = url
        self.size = max(1, size)
        idle = [try PostgresConnection(url: url)]
        opened = 1
    }

    func writing<T>(_ body: (any SQLConnection) throws -> T) throws(StoreError) -> T {
        let connection = try take()
        defer { give(connection) }
        return try Self.typed { try body(connection) }
    }

    func reading<T>(_ body: (any SQLConnection) throws -> T) throws(StoreError) -> T {
        try writing(body)
    }

    /// Once no older snapshot can see what was deleted (`waitForOlderSnapshots`), `VACUUM FULL`
    /// rewrites the tables of photos, faces and sessions' keys into new files and
    /// drops the old ones (a plain `VACUUM` frees a deleted row's space but leaves its bytes there
    /// until they are written over); plain `VACUUM` prunes the old versions of sessions' and
    /// webhooks' rows (rewriting those would stop every capture while it runs; a session's old
    /// versions are sealed under its key, `SessionSealing`, which the first rewrite removed).
    /// Then a checkpoint, a switch to a new log segment and another checkpoint leave the segments
    /// that logged the data behind the restart point, where PostgreSQL deletes them (with
    /// `wal_recycle = off`; else it renames them for reuse). Checkpoints need a superuser or
    /// `pg_checkpoint`: without, the log is left as it is and this answers false.
    func reclaim() throws(StoreError) -> Bool {
        try writing { c in
            try Self.waitForOlderSnapshots(on: c)
            try c.execute("VACUUM FULL audit_images, document_images, reference_faces, session_keys")
            try c.execute("VACUUM sessions, webhook_outbox")
            do {
                try c.execute("CHECKPOINT")
                try c.execute("SELECT pg_switch_wal()")
                try c.execute("CHECKPOINT")
                return true
            } catch StoreError.query(let message) where message.contains("permission") || message.contains("must be superuser") {
                return false
            }
        }
    }

    /// How long `reclaim` waits for other connections' older snapshots (s).
    static let snapshotWaitSeconds = 5.0

    /// Waits, up to `snapshotWaitSeconds`, until no other client of this database holds a
    /// snapshot taken before now: `VACUUM FULL` copies a deleted row such a snapshot may still
    /// see into the new file, photo and all (a background task's query running at the moment
    /// of an erase left the photo there until the next reclaim).
    private static func waitForOlderSnapshots(on c: any SQLConnection) throws {
        guard let now = try c.query("SELECT txid_snapshot_xmax(txid_current_snapshot())").first?.first?.int else { return }
        // A snapshot's xmin older than `now` is one whose age exceeds the transactions since.
        let older = """
            SELECT count(*) FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
              AND backend_xmin IS NOT NULL AND age(backend_xmin) > txid_snapshot_xmax(txid_current_snapshot()) - ?1
            """
        let deadline = Date().addingTimeInterval(snapshotWaitSeconds)
        while try c.query(older, [.integer(Int64(now))]).first?.first?.int ?? 0 > 0, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    private func take() throws(StoreError) -> PostgresConnection {
        condition.lock()
        while idle.isEmpty && opened >= size { condition.wait() }
        if let connection = idle.popLast() {
            condition.unlock()
            return connection
        }
        opened += 1
        condition.unlock()
        do {
            return try PostgresConnection(url: url)
        } catch {
            condition.lock()
            opened -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func give(_ connection: PostgresConnection) {
        condition.lock()
        idle.append(connection)
        condition.signal()
        condition.unlock()
    }
}
