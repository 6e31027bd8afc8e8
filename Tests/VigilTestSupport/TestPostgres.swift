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
        guard let server else {
            throw Unavailable(description: "VIGIL_TEST_POSTGRES is not set: run the tests through scripts/test, which starts PostgreSQL")
        }
        let name = "vigil_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        guard let connection = PQconnectdb("\(server) dbname=postgres") else { throw Unavailable(description: "libpq: out of memory") }
        defer { PQfinish(connection) }
        guard PQstatus(connection) == CONNECTION_OK else { throw Unavailable(description: String(cString: PQerrorMessage(connection))) }
        let result = PQexec(connection, "CREATE DATABASE \(name)")
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else { throw Unavailable(description: String(cString: PQerrorMessage(connection))) }
        return "\(server) dbname=\(name)"
    }
}
