import CPostgres
import Foundation

/// The tests' PostgreSQL server, which `scripts/test` starts (`scripts/lib/temporary-postgres.sh`)
/// and names in `VIGIL_TEST_POSTGRES`: each call makes a new empty database on it.
public enum TestPostgres {
    /// Why there is no database to test with.
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    /// The server's settings (libpq `key=value`, without a dbname).
    public static var server: String? { ProcessInfo.processInfo.environment["VIGIL_TEST_POSTGRES"] }

    /// A new database's libpq settings.
    public static func newDatabase() throws -> String {
        let name = "vigil_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try administer("CREATE DATABASE \(name)")
        return "\(try serverSettings()) dbname=\(name)"
    }

    /// Ends every session connected to the database of `settings` (made by `newDatabase`), as a
    /// server restart or a network failure does.
    public static func dropConnections(_ settings: String) throws {
        let name = settings.components(separatedBy: "dbname=").last ?? ""
        try administer("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)'")
    }

    /// The files that hold the database of `settings` (made by `newDatabase`): its directory's
    /// and the server's write-ahead log's. The tests' server runs on this machine.
    public static func files(of settings: String) throws -> [URL] {
        let name = settings.components(separatedBy: "dbname=").last ?? ""
        guard let directory = try administer("SHOW data_directory").first,
              let oid = try administer("SELECT oid FROM pg_database WHERE datname = '\(name)'").first else {
            throw Unavailable(description: "no data directory or database \(name)")
        }
        let root = URL(fileURLWithPath: directory)
        return try [root.appendingPathComponent("base/\(oid)"), root.appendingPathComponent("pg_wal")].flatMap { folder in
            try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
                .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
        }
    }

    /// Opens a transaction on the database of `settings` that holds a snapshot, as a query
    /// running at that moment does, and ends it `seconds` later on another thread.
    public static func holdSnapshot(_ settings: String, for seconds: Double) throws {
        let connection = try connect(settings)
        do {
            try run("BEGIN ISOLATION LEVEL REPEATABLE READ", on: connection)
            try run("SELECT 1", on: connection)
        } catch {
            PQfinish(connection)
            throw error
        }
        let held = HeldConnection(connection)
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: seconds)
            PQclear(PQexec(held.connection, "COMMIT"))
            PQfinish(held.connection)
        }
    }

    /// A libpq connection handed to the one thread that ends it.
    // @unchecked: only the thread it is handed to uses the connection.
    private final class HeldConnection: @unchecked Sendable {
        let connection: OpaquePointer
        init(_ connection: OpaquePointer) { self.connection = connection }
    }

    private static func serverSettings() throws -> String {
        guard let server else {
            throw Unavailable(description: "VIGIL_TEST_POSTGRES is not set: run the tests through scripts/test, which starts PostgreSQL")
        }
        return server
    }

    /// Runs `sql` on the server's maintenance database; the first column of its rows.
    @discardableResult
    private static func administer(_ sql: String) throws -> [String] {
        let connection = try connect("\(try serverSettings()) dbname=postgres")
        defer { PQfinish(connection) }
        return try run(sql, on: connection)
    }

    /// A connection with `settings`, which the caller finishes.
    private static func connect(_ settings: String) throws -> OpaquePointer {
        guard let connection = PQconnectdb(settings) else { throw Unavailable(description: "libpq: out of memory") }
        guard PQstatus(connection) == CONNECTION_OK else {
            defer { PQfinish(connection) }
            throw Unavailable(description: String(cString: PQerrorMessage(connection)))
        }
        return connection
    }

    /// Runs `sql` on `connection`; the first column of its rows.
    @discardableResult
    private static func run(_ sql: String, on connection: OpaquePointer) throws -> [String] {
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        guard [PGRES_COMMAND_OK, PGRES_TUPLES_OK].contains(PQresultStatus(result)) else {
            throw Unavailable(description: String(cString: PQerrorMessage(connection)))
        }
        return (0..<PQntuples(result)).map { String(cString: PQgetvalue(result, $0, 0)) }
    }
}
