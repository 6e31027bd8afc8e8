import Foundation

/// The embedded store: one SQLite file in WAL mode, migrated at open. Writes go through one
/// connection under a lock, so every change is one serialised transaction; the hot lookups
/// (tokens, API keys, a tenant's session) use a few reader connections, which WAL lets run
/// beside the writer.
// @unchecked: adds no state to `SQLStore`.
public final class SQLiteStore: SQLStore, @unchecked Sendable {
    /// Opens or creates the database at `path` and applies pending migrations. The file and its
    /// `-wal` and `-shm` are readable by the owner only (0600): they hold the signing keys'
    /// seeds and personal data.
    public init(path: String, readers: Int = 4) throws(StoreError) {
        if path != ":memory:" { Self.restrictToOwner(path) }
        try super.init(database: SQLiteDatabase(path: path, readers: path == ":memory:" ? 0 : readers))
        // SQLite makes `-wal` and `-shm` with the database's mode; older ones are tightened here.
        if path != ":memory:" { for suffix in ["-wal", "-shm"] { chmod(path + suffix, 0o600) } }
    }

    /// Creates `path` empty with mode 0600 when missing (SQLite then keeps that mode for it and
    /// its journals), and tightens an existing file to 0600.
    private static func restrictToOwner(_ path: String) {
        let descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        if descriptor >= 0 { close(descriptor) }
        chmod(path, 0o600)
    }
}

/// One writer connection under a lock and a few read-only ones, each under its own.
// @unchecked: `writer` is only touched inside `lock`; each reader only inside its own lock.
final class SQLiteDatabase: SQLDatabase, @unchecked Sendable {
    private let lock = NSLock()
    private let writer: SQLiteConnection
    private let readers: [(lock: NSLock, connection: SQLiteConnection)]

    init(path: String, readers: Int) throws(StoreError) {
        writer = try SQLiteConnection(path: path)
        var opened: [(NSLock, SQLiteConnection)] = []
        for _ in 0..<readers { opened.append((NSLock(), try SQLiteConnection(path: path, readOnly: true))) }
        self.readers = opened
    }

    func writing<T>(_ body: (any SQLConnection) throws -> T) throws(StoreError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try Self.typed { try body(writer) }
    }

    /// Checkpoints the log into the file and truncates it to nothing, with every reader held
    /// (a reader's snapshot would keep the log's frames in use). The log holds every page as
    /// written, erased data included, until then.
    func reclaim() throws(StoreError) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        for reader in readers { reader.lock.lock() }
        defer { for reader in readers { reader.lock.unlock() } }
        let result = try writer.query("PRAGMA wal_checkpoint(TRUNCATE)")
        // (busy, log frames, frames checkpointed): busy 0 when the log was emptied.
        return result.first?.first?.int == 0
    }

    /// Runs a read on a free reader connection (waiting for the first when all are busy), or on
    /// the writer when there are none.
    func reading<T>(_ body: (any SQLConnection) throws -> T) throws(StoreError) -> T {
        guard !readers.isEmpty else { return try writing(body) }
        let chosen = readers.first { $0.lock.try() } ?? { readers[0].lock.lock(); return readers[0] }()
        defer { chosen.lock.unlock() }
        return try Self.typed { try body(chosen.connection) }
    }
}
