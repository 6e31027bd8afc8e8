import CPostgres
import Foundation

/// One libpq connection, used by one thread at a time. Statements are prepared once per SQL
/// text (their `?N` parameters become `$N`); values go as text, bytes as binary, and results
/// come back binary, read by column type.
///
/// Owns its `PGconn*` from `init` to `deinit`; not Sendable: `PostgresDatabase` lends it to one
/// caller at a time.
final class PostgresConnection: SQLConnection {
    private let handle: OpaquePointer
    /// Statement names by SQL text, on this connection since it was last (re)opened.
    private var prepared: [String: String] = [:]
    private(set) var changes = 0
    /// Between a BEGIN and its COMMIT or ROLLBACK: a connection lost then is not reopened until
    /// the transaction ends, so that no later statement of it runs on a new session outside it.
    private var inTransaction = false

    let beginStatement = "BEGIN"
    /// One lock for every node of a deployment, held to the end of the migration transaction.
    let migrationLockStatement: String? = "SELECT pg_advisory_xact_lock(7361921010)"

    /// Connects to `url` (a `postgres://` URL or `key=value` string); a connection that takes
    /// over 5 s fails unless the URL says otherwise.
    init(url: String) throws(StoreError) {
        // libpq's own parse errors quote the piece they stumbled on, which may be the password
        // ("invalid percent-encoded token"): the URL is parsed here first, and its errors told in
        // words that quote nothing of it.
        let secrets = try Self.secrets(of: url)
        // Later entries override earlier ones: the URL's own settings win over the defaults.
        let keywords = ["connect_timeout", "application_name", "dbname"], values = ["5", "vigil", url]
        let connection = withCStringArray(keywords) { k in withCStringArray(values) { v in PQconnectdbParams(k, v, 1) } }
        guard let connection else { throw .unavailable("libpq could not allocate a connection") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.redacted(Self.text(PQerrorMessage(connection)), hiding: secrets)
            PQfinish(connection)
            throw .unavailable(message)
        }
        handle = connection
        // Notices (such as "already exists, skipping") are not errors and not worth a line on stderr.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit { PQfinish(handle) }

    /// The password (and the whole string) of a connection string that libpq parses; a string
    /// it does not parse is refused with what to check, never with any of its text.
    static func secrets(of url: String) throws(StoreError) -> [String] {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &error) else {
            PQfreemem(error)
            throw .unavailable("the PostgreSQL connection string could not be parsed (check its form, its percent-encoding, "
                               + "its port and its option names; it is not repeated here, since it may hold a password)")
        }
        defer { PQconninfoFree(options) }
        var secrets = [url]
        var option = options
        while let keyword = option.pointee.keyword {
            if String(cString: keyword) == "password", let value = option.pointee.val, value.pointee != 0 { secrets.append(String(cString: value)) }
            option += 1
        }
        return secrets
    }

    /// `message` with every one of `secrets` in it replaced.
    static func redacted(_ message: String, hiding secrets: [String]) -> String {
        secrets.filter { !$0.isEmpty }.reduce(message) { $0.replacingOccurrences(of: $1, with: "(hidden)") }
    }

    func execute(_ sql: String) throws(StoreError) {
        let ends = sql == "COMMIT" || sql == "ROLLBACK"
        if inTransaction, PQstatus(handle) != CONNECTION_OK {
            // The server dropped the transaction with the connection: none of it was committed.
            inTransaction = false
            if sql == "ROLLBACK" { return }
            throw .unavailable("the connection to PostgreSQL was lost during a transaction")
        }
        try reconnectIfBroken()
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        if ends { inTransaction = false }
        try check(result, sql)
        if sql == beginStatement { inTransaction = true }
    }

    @discardableResult
    func query(_ sql: String, _ values: [SQLValue]) throws(StoreError) -> [[SQLValue]] {
        if inTransaction, PQstatus(handle) != CONNECTION_OK {
            throw .unavailable("the connection to PostgreSQL was lost during a transaction")
        }
        try reconnectIfBroken()
        let name = try statement(sql, parameterCount: values.count)
        var texts: [UnsafeMutablePointer<CChar>?] = []
        var lengths: [Int32] = [], formats: [Int32] = []
        defer { texts.forEach { free($0) } }
        for value in values {
            switch value {
            case .null: texts.append(nil); lengths.append(0); formats.append(0)
            case .integer(let v): texts.append(strdup(String(v))); lengths.append(0); formats.append(0)
            case .real(let v): texts.append(strdup("\(v)")); lengths.append(0); formats.append(0)
            case .text(let v): texts.append(strdup(v)); lengths.append(0); formats.append(0)
            case .blob(let v):
                // Binary: the bytes themselves. malloc(0) may be NULL, which would read as SQL NULL.
                let copy = malloc(max(1, v.count))!.assumingMemoryBound(to: CChar.self)
                v.withUnsafeBytes { if let base = $0.baseAddress { memcpy(copy, base, v.count) } }
                texts.append(copy); lengths.append(Int32(v.count)); formats.append(1)
            }
        }
        let result = texts.map { UnsafePointer($0) }.withUnsafeBufferPointer { pointers in
            PQexecPrepared(handle, name, Int32(values.count), pointers.baseAddress, lengths, formats, 1)
        }
        defer { PQclear(result) }
        try check(result, sql)
        guard let result else { return [] }
        changes = Int(Self.text(PQcmdTuples(result))) ?? 0
        return Self.rows(result)
    }

    func adapting(schema sql: String) -> String { sql.replacingOccurrences(of: " BLOB", with: " BYTEA") }

    /// After the server restarted or the network dropped, one new try; prepared statements went
    /// with the old session.
    private func reconnectIfBroken() throws(StoreError) {
        guard PQstatus(handle) != CONNECTION_OK else { return }
        PQreset(handle)
        prepared.removeAll()
        guard PQstatus(handle) == CONNECTION_OK else { throw .unavailable(Self.text(PQerrorMessage(handle))) }
    }

    /// The name of `sql` prepared on this connection. Parameters that the statement does not use
    /// (an UPDATE that leaves some columns of the row as they are) are declared text, which
    /// PostgreSQL cannot infer.
    private func statement(_ sql: String, parameterCount: Int) throws(StoreError) -> String {
        if let name = prepared[sql] { return name }
        let (text, used) = Self.numbered(sql)
        let types: [Oid] = (1...max(1, parameterCount)).map { used.contains($0) ? 0 : 25 }
        let name = "s\(prepared.count)"
        let result = PQprepare(handle, name, text, Int32(parameterCount), types)
        defer { PQclear(result) }
        try check(result, sql)
        prepared[sql] = name
        return name
    }

    /// `sql` with `?N` written `$N`, and the numbers used. Vigil's SQL has no `?` in literals.
    static func numbered(_ sql: String) -> (String, Set<Int>) {
        var out = "", used = Set<Int>()
        var characters = sql.makeIterator()
        var pending: Character? = characters.next()
        while let c = pending {
            pending = characters.next()
            guard c == "?" else { out.append(c); continue }
            var digits = ""
            while let d = pending, d.isASCII, d.isNumber { digits.append(d); pending = characters.next() }
            if let n = Int(digits) { used.insert(n) }
            out += "$" + digits
        }
        return (out, used)
    }

    private func check(_ result: OpaquePointer?, _ sql: String) throws(StoreError) {
        guard let result else { throw .unavailable(Self.text(PQerrorMessage(handle))) }
        let status = PQresultStatus(result)
        guard status != PGRES_COMMAND_OK, status != PGRES_TUPLES_OK else { return }
        let message = Self.text(PQresultErrorMessage(result)).trimmingCharacters(in: .whitespacesAndNewlines)
        let state = Self.text(PQresultErrorField(result, Int32(UInt8(ascii: "C"))))
        if PQstatus(handle) != CONNECTION_OK { throw .unavailable(message) }
        switch state {
        case "23505", "23503": throw .conflict(message)   // unique and foreign-key violations, as SQLite's constraint errors
        case let s where s.hasPrefix("08") || s.hasPrefix("57P"): throw .unavailable(message)   // connection lost, server shutting down
        default: throw .query("\(message) in: \(sql)")
        }
    }

    private static func rows(_ result: OpaquePointer) -> [[SQLValue]] {
        let count = PQntuples(result), columns = PQnfields(result)
        guard count > 0 else { return [] }
        let types = (0..<columns).map { PQftype(result, $0) }
        return (0..<count).map { row in
            (0..<columns).map { column in
                guard PQgetisnull(result, row, column) == 0, let value = PQgetvalue(result, row, column) else { return .null }
                let bytes = UnsafeRawBufferPointer(start: value, count: Int(PQgetlength(result, row, column)))
                return Self.value(bytes, type: types[Int(column)])
            }
        }
    }

    /// A binary result value by its type's OID.
    private static func value(_ bytes: UnsafeRawBufferPointer, type: Oid) -> SQLValue {
        func integer() -> Int64 {
            guard !bytes.isEmpty else { return 0 }
            let shift = 64 - 8 * bytes.count
            return (bytes.reduce(0) { $0 << 8 | Int64($1) } << shift) >> shift
        }
        switch type {
        case 20, 21, 23: return .integer(integer())   // int8, int2, int4 (big-endian, sign-extended)
        case 16: return .integer(bytes.first == 1 ? 1 : 0)   // bool
        case 701: return .real(Double(bitPattern: UInt64(bitPattern: integer())))   // float8
        case 17: return .blob(Array(bytes))   // bytea
        default: return .text(String(decoding: bytes, as: UTF8.self))   // text, varchar and the rest, as text
        }
    }

    private static func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
    private static func text(_ pointer: UnsafeMutablePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
}

/// Calls `body` with `strings` as a C array of C strings that live until it returns.
private func withCStringArray<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) } + [nil]
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
