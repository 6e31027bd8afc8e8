/// Why a store operation failed.
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The database could not be opened or migrated.
    case unavailable(String)
    /// A statement failed (the SQLite or PostgreSQL message).
    case query(String)
    /// A unique key already exists.
    case conflict(String)
    /// The row changed since it was read (optimistic concurrency).
    case staleVersion
    /// Stored data that does not decode.
    case corrupt(String)

    public var description: String {
        switch self {
        case .unavailable(let m): "database unavailable: \(m)"
        case .query(let m): "query failed: \(m)"
        case .conflict(let m): "already exists: \(m)"
        case .staleVersion: "the row changed since it was read"
        case .corrupt(let m): "stored data is corrupt: \(m)"
        }
    }
}
