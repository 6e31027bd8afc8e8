import Foundation
import VigilCore

/// `Store` over SQL: every statement and transaction boundary written once, for SQLite
/// (`SQLiteStore`) and PostgreSQL (`PostgresStore`), which differ only in their connections.
// @unchecked: subclasses add no stored state, and `database` is Sendable.
public class SQLStore: Store, @unchecked Sendable {
    private let database: any SQLDatabase

    init(database: any SQLDatabase) throws(StoreError) {
        self.database = database
        try migrate()
    }

    /// The applied schema versions.
    public func appliedMigrations() throws(StoreError) -> [Int] {
        try locked { c in try c.query("SELECT version FROM schema_migrations ORDER BY version").compactMap { $0[0].int } }
    }

    /// Applies the steps not applied yet, each in its own transaction, which first takes the
    /// connection's migration lock and then checks again that the step is still missing.
    private func migrate() throws(StoreError) {
        try locked { c in
            try c.transaction {
                if let lock = c.migrationLockStatement { try c.execute(lock) }
                try c.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at_ms BIGINT NOT NULL)")
            }
            for step in Migrations.steps {
                try c.transaction {
                    if let lock = c.migrationLockStatement { try c.execute(lock) }
                    guard try c.query("SELECT 1 FROM schema_migrations WHERE version = ?1", [.integer(Int64(step.version))]).isEmpty else { return }
                    try c.execute(c.adapting(schema: step.sql))
                    try c.query("INSERT INTO schema_migrations (version, applied_at_ms) VALUES (?1, ?2)", [.integer(Int64(step.version)), ms(Date())])
                }
            }
        }
    }

    @discardableResult
    private func locked<T>(_ body: (any SQLConnection) throws -> T) throws(StoreError) -> T {
        try database.writing(body)
    }

    private func reading<T>(_ body: (any SQLConnection) throws -> T) throws(StoreError) -> T {
        try database.reading(body)
    }

    @discardableResult
    private func inTransaction<T>(_ body: (any SQLConnection) throws -> T) throws(StoreError) -> T {
        try locked { c in try c.transaction { try body(c) } }
    }

    // MARK: tenants and keys

    public func insertTenant(_ tenant: Tenant) throws(StoreError) {
        try locked { c in
            try c.query("INSERT INTO tenants (id, name, created_at_ms, webhook_url, webhook_secret) VALUES (?1, ?2, ?3, ?4, ?5)",
                        [.text(tenant.id), .text(tenant.name), ms(tenant.createdAt), tenant.webhookURL.sql, tenant.webhookSecret.sql])
        }
    }

    public func tenant(id: String) throws(StoreError) -> Tenant? {
        try locked { c in try c.query("SELECT \(Self.tenantColumns) FROM tenants WHERE id = ?1", [.text(id)]).first.map(Self.tenant) }
    }

    public func tenants() throws(StoreError) -> [Tenant] {
        try locked { c in try c.query("SELECT \(Self.tenantColumns) FROM tenants ORDER BY created_at_ms, id").map(Self.tenant) }
    }

    public func updateTenant(_ tenant: Tenant) throws(StoreError) {
        try locked { c in
            try c.query("UPDATE tenants SET name = ?2, webhook_url = ?3, webhook_secret = ?4 WHERE id = ?1",
                        [.text(tenant.id), .text(tenant.name), tenant.webhookURL.sql, tenant.webhookSecret.sql])
        }
    }

    public func insertAPIKey(_ key: APIKeyRecord, hash: String, maxLive: Int) throws(StoreError) -> Bool {
        try inTransaction { c in
            // One statement, so that the count and the insert see the same keys.
            try c.query("""
                INSERT INTO api_keys (key_hash, tenant_id, created_at_ms, id, prefix) SELECT ?1, ?2, ?3, ?4, ?5 \
                WHERE (SELECT COUNT(*) FROM api_keys WHERE tenant_id = ?2 AND revoked_at_ms IS NULL) < ?6
                """, [.text(hash), .text(key.tenantId), ms(key.createdAt), .text(key.id), key.prefix.sql, .integer(Int64(maxLive))])
            return c.changes == 1
        }
    }

    public func apiKeys(tenantId: String) throws(StoreError) -> [APIKeyRecord] {
        try reading { c in
            try c.query("SELECT \(Self.apiKeyColumns) FROM api_keys WHERE tenant_id = ?1 ORDER BY created_at_ms, id", [.text(tenantId)]).map(Self.apiKey)
        }
    }

    public func apiKey(hash: String) throws(StoreError) -> APIKeyRecord? {
        try reading { c in try c.query("SELECT \(Self.apiKeyColumns) FROM api_keys WHERE key_hash = ?1", [.text(hash)]).first.map(Self.apiKey) }
    }

    public func revokeAPIKey(id: String, tenantId: String?, at date: Date, keepingOne: Bool) throws(StoreError) -> APIKeyRecord? {
        try inTransaction { c in
            // PostgreSQL cannot type a parameter that is only compared with NULL: the tenant's
            // condition is left out rather than passed as NULL.
            let keeping = keepingOne ? " AND (SELECT COUNT(*) FROM api_keys k WHERE k.tenant_id = api_keys.tenant_id AND k.revoked_at_ms IS NULL) > 1" : ""
            let update = "UPDATE api_keys SET revoked_at_ms = ?2 WHERE id = ?1 AND revoked_at_ms IS NULL" + keeping
            if let tenantId {
                try c.query(update + " AND tenant_id = ?3", [.text(id), ms(date), .text(tenantId)])
            } else {
                try c.query(update, [.text(id), ms(date)])
            }
            guard c.changes == 1 else { return nil }
            return try c.query("SELECT \(Self.apiKeyColumns) FROM api_keys WHERE id = ?1", [.text(id)]).first.map(Self.apiKey)
        }
    }

    public func deleteTenant(id: String) throws(StoreError) -> Bool {
        try inTransaction { c in
            let owned = "SELECT id FROM sessions WHERE tenant_id = ?1"
            for table in ["audit_images", "reference_faces", "document_images", "frame_hashes"] {
                try c.query("DELETE FROM \(table) WHERE session_id IN (\(owned))", [.text(id)])
            }
            try c.query("DELETE FROM session_keys WHERE sealed_session_id IN (\(owned))", [.text(id)])
            for table in ["webhook_outbox", "sessions", "idempotency_keys", "api_keys"] {
                try c.query("DELETE FROM \(table) WHERE tenant_id = ?1", [.text(id)])
            }
            try c.query("DELETE FROM tenants WHERE id = ?1", [.text(id)])
            return c.changes == 1
        }
    }

    public func tenant(apiKeyHash: String) throws(StoreError) -> Tenant? {
        try reading { c in
            try c.query("""
                SELECT t.id, t.name, t.created_at_ms, t.webhook_url, t.webhook_secret FROM tenants t JOIN api_keys k ON k.tenant_id = t.id \
                WHERE k.key_hash = ?1 AND k.revoked_at_ms IS NULL
                """, [.text(apiKeyHash)]).first.map(Self.tenant)
        }
    }

    private static let apiKeyColumns = "id, tenant_id, prefix, created_at_ms, revoked_at_ms"

    private static func apiKey(_ row: [SQLValue]) -> APIKeyRecord {
        APIKeyRecord(id: row[0].string ?? "", tenantId: row[1].string ?? "", prefix: row[2].string, createdAt: date(row[3]),
                     revokedAt: row[4] == .null ? nil : date(row[4]))
    }

    public func branding(tenantId: String) throws(StoreError) -> [UInt8]? {
        try reading { c in try c.query("SELECT branding FROM tenants WHERE id = ?1", [.text(tenantId)]).first?[0].bytes }
    }

    public func setBranding(_ branding: [UInt8]?, tenantId: String) throws(StoreError) {
        try locked { c in try c.query("UPDATE tenants SET branding = ?2 WHERE id = ?1", [.text(tenantId), branding.map(SQLValue.blob) ?? .null]) }
    }

    private static let tenantColumns = "id, name, created_at_ms, webhook_url, webhook_secret"

    private static func tenant(_ row: [SQLValue]) -> Tenant {
        Tenant(id: row[0].string ?? "", name: row[1].string ?? "", createdAt: date(row[2]), webhookURL: row[3].string, webhookSecret: row[4].string)
    }

    // MARK: sessions

    private static let sessionColumns = """
        id, tenant_id, token_hash, status, policy, ssid, external_ref, locale, theme, created_at_ms, expires_at_ms, updated_at_ms, \
        engine_state, result, signed_result, version, outcome, risk, redirect_url, document
        """

    /// The session's columns and its sealing key (`SessionSealing`), null once erased.
    private static let sessionSelection = sessionColumns + ", (SELECT sealing_key FROM session_keys WHERE sealed_session_id = sessions.id)"

    public func insertSession(_ session: SessionRecord, reference: ReferenceFace?) throws(StoreError) {
        let key = SessionSealing.newKey()
        let values = try Self.values(session, sealedWith: key)
        try inTransaction { c in
            try c.query("""
                INSERT INTO sessions (\(Self.sessionColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)
                """, values)
            try c.query("INSERT INTO session_keys (sealed_session_id, sealing_key) VALUES (?1, ?2)", [.text(session.id), .blob(key)])
            if let reference {
                try c.query("INSERT INTO reference_faces (session_id, descriptor, delete_after_ms) VALUES (?1, ?2, ?3)",
                            [.text(session.id), .blob(reference.descriptor), ms(reference.deleteAfter)])
            }
        }
    }

    public func session(id: String, tenantId: String) throws(StoreError) -> SessionRecord? {
        let row = try reading { c in
            try c.query("SELECT \(Self.sessionSelection) FROM sessions WHERE id = ?1 AND tenant_id = ?2", [.text(id), .text(tenantId)]).first
        }
        return try row.map(Self.session)
    }

    public func session(tokenHash: String) throws(StoreError) -> SessionRecord? {
        let row = try reading { c in try c.query("SELECT \(Self.sessionSelection) FROM sessions WHERE token_hash = ?1", [.text(tokenHash)]).first }
        return try row.map(Self.session)
    }

    public func sessionHead(tokenHash: String) throws(StoreError) -> SessionHead? {
        let row = try reading { c in
            try c.query("SELECT id, tenant_id, status, expires_at_ms, version FROM sessions WHERE token_hash = ?1", [.text(tokenHash)]).first
        }
        guard let row else { return nil }
        guard let status = row[2].string.flatMap(SessionStatus.init(rawValue:)) else { throw .corrupt("session status \(row[2])") }
        return SessionHead(id: row[0].string ?? "", tenantId: row[1].string ?? "", status: status, expiresAt: date(row[3]), version: row[4].int ?? 0)
    }

    @discardableResult
    public func updateSession(_ session: SessionRecord, enqueue webhook: WebhookDelivery?,
                              personalData: PersonalDataChange, frameHash: FrameHash?) throws(StoreError) -> SessionRecord {
        var stored = session
        stored.version += 1
        try inTransaction { c in
            // Erased, the row is written plain and its key deleted with it: the row's old
            // versions (which PostgreSQL keeps in the table's free space) stay sealed, keyless.
            var key = try c.query("SELECT sealing_key FROM session_keys WHERE sealed_session_id = ?1", [.text(session.id)]).first?[0].bytes
            if case .erase = personalData {
                try c.query("DELETE FROM session_keys WHERE sealed_session_id = ?1", [.text(session.id)])
                key = nil
            }
            let values = try Self.values(stored, sealedWith: key)
            try c.query("""
                UPDATE sessions SET status = ?4, policy = ?5, ssid = ?6, external_ref = ?7, locale = ?8, theme = ?9, \
                expires_at_ms = ?11, updated_at_ms = ?12, engine_state = ?13, result = ?14, signed_result = ?15, version = ?16, \
                outcome = ?17, risk = ?18, redirect_url = ?19, document = ?20 WHERE id = ?1 AND tenant_id = ?2 AND version = ?16 - 1
                """, values)
            guard c.changes == 1 else { throw StoreError.staleVersion }
            if let webhook { try Self.insert(webhook, into: c) }
            if let frameHash { try Self.insert(frameHash, sessionId: session.id, into: c) }
            switch personalData {
            case .keep: break
            case .storeAuditImage(let image):
                try c.query("""
                    INSERT INTO audit_images (session_id, jpeg, delete_after_ms) VALUES (?1, ?2, ?3) \
                    ON CONFLICT (session_id) DO UPDATE SET jpeg = excluded.jpeg, delete_after_ms = excluded.delete_after_ms
                    """, [.text(session.id), .blob(image.jpeg), ms(image.deleteAfter)])
            case .storeDocumentImage(let image):
                try c.query("""
                    INSERT INTO document_images (session_id, jpeg, portrait, delete_after_ms) VALUES (?1, ?2, ?3, ?4) \
                    ON CONFLICT (session_id) DO UPDATE SET jpeg = excluded.jpeg, portrait = excluded.portrait, delete_after_ms = excluded.delete_after_ms
                    """, [.text(session.id), .blob(image.jpeg), image.portrait.map(SQLValue.blob) ?? .null, ms(image.deleteAfter)])
            case .erase(let payloads):
                try c.query("UPDATE sessions SET erased_at_ms = ?2 WHERE id = ?1", [.text(session.id), ms(session.updatedAt)])
                try c.query("DELETE FROM audit_images WHERE session_id = ?1", [.text(session.id)])
                try c.query("DELETE FROM document_images WHERE session_id = ?1", [.text(session.id)])
                try c.query("DELETE FROM reference_faces WHERE session_id = ?1", [.text(session.id)])
                for (id, payload) in payloads.sorted(by: { $0.key < $1.key }) {
                    try c.query("UPDATE webhook_outbox SET payload = ?3 WHERE id = ?1 AND session_id = ?2 AND state = 'pending'",
                                [.text(id), .text(session.id), .blob(payload)])
                }
            }
        }
        return stored
    }

    public func failedSessions(tenantId: String, ssid: String, since: Date) throws(StoreError) -> Int {
        try reading { c in
            try c.query("""
                SELECT COUNT(*) FROM sessions WHERE tenant_id = ?1 AND ssid = ?2 AND updated_at_ms >= ?3 AND outcome = 'failed'
                """, [.text(tenantId), .text(ssid), ms(since)]).first?[0].int ?? 0
        }
    }

    public func referenceFace(sessionId: String) throws(StoreError) -> ReferenceFace? {
        try reading { c in
            try c.query("SELECT descriptor, delete_after_ms FROM reference_faces WHERE session_id = ?1", [.text(sessionId)]).first.map {
                ReferenceFace(descriptor: $0[0].bytes ?? [], deleteAfter: date($0[1]))
            }
        }
    }

    public func auditImage(sessionId: String) throws(StoreError) -> AuditImage? {
        try reading { c in
            try c.query("SELECT jpeg, delete_after_ms FROM audit_images WHERE session_id = ?1", [.text(sessionId)]).first.map {
                AuditImage(jpeg: $0[0].bytes ?? [], deleteAfter: date($0[1]))
            }
        }
    }

    public func documentImage(sessionId: String) throws(StoreError) -> DocumentImage? {
        try reading { c in
            try c.query("SELECT jpeg, portrait, delete_after_ms FROM document_images WHERE session_id = ?1", [.text(sessionId)]).first.map {
                DocumentImage(jpeg: $0[0].bytes ?? [], portrait: $0[1].bytes, deleteAfter: date($0[2]))
            }
        }
    }

    public func insertFrameHash(_ hash: UInt64, sessionId: String, deleteAfter: Date) throws(StoreError) {
        try locked { c in try Self.insert(FrameHash(hash, deleteAfter: deleteAfter), sessionId: sessionId, into: c) }
    }

    private static func insert(_ frame: FrameHash, sessionId: String, into c: any SQLConnection) throws {
        try c.query("INSERT INTO frame_hashes (hash, session_id, delete_after_ms) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
                    [.integer(Int64(bitPattern: frame.hash)), .text(sessionId), ms(frame.deleteAfter)])
    }

    public func framesSeenElsewhere(sessionId: String) throws(StoreError) -> Int {
        try reading { c in
            try c.query("""
                SELECT COUNT(*) FROM frame_hashes f WHERE f.session_id = ?1 \
                AND EXISTS (SELECT 1 FROM frame_hashes g WHERE g.hash = f.hash AND g.session_id <> f.session_id)
                """, [.text(sessionId)]).first?[0].int ?? 0
        }
    }

    public func purgePersonalData(now: Date, webhooksBefore: Date) throws(StoreError) -> Int {
        try inTransaction { c in
            var purged = 0
            for table in ["audit_images", "reference_faces", "document_images", "frame_hashes"] {
                try c.query("DELETE FROM \(table) WHERE delete_after_ms <= ?1", [ms(now)])
                purged += c.changes
            }
            try c.query("DELETE FROM webhook_outbox WHERE state IN ('delivered', 'dead') AND created_at_ms < ?1", [ms(webhooksBefore)])
            return purged + c.changes
        }
    }

    public func sessionsHoldingPersonalData(endedBefore: Date, limit: Int) throws(StoreError) -> [SessionRecord] {
        let rows = try reading { c in
            try c.query("""
                SELECT \(Self.sessionSelection) FROM sessions WHERE erased_at_ms IS NULL AND updated_at_ms < ?1 \
                AND status IN ('completed', 'cancelled', 'expired') ORDER BY updated_at_ms, id LIMIT ?2
                """, [ms(endedBefore), .integer(Int64(limit))])
        }
        return try rows.map(Self.session)
    }

    public func reclaim() throws(StoreError) -> Bool {
        try database.reclaim()
    }

    public func webhooks(sessionId: String) throws(StoreError) -> [WebhookDelivery] {
        try reading { c in
            try c.query("SELECT \(Self.webhookColumns) FROM webhook_outbox WHERE session_id = ?1 ORDER BY created_at_ms, id",
                        [.text(sessionId)]).map(Self.webhook)
        }
    }

    public func sessions(tenantId: String?, limit: Int) throws(StoreError) -> [SessionRecord] {
        let rows = try locked { c in
            if let tenantId {
                return try c.query("SELECT \(Self.sessionSelection) FROM sessions WHERE tenant_id = ?1 ORDER BY created_at_ms DESC, id LIMIT ?2",
                                   [.text(tenantId), .integer(Int64(limit))])
            }
            return try c.query("SELECT \(Self.sessionSelection) FROM sessions ORDER BY created_at_ms DESC, id LIMIT ?1", [.integer(Int64(limit))])
        }
        return try rows.map(Self.session)
    }

    public func expiredSessions(now: Date, limit: Int) throws(StoreError) -> [SessionRecord] {
        let rows = try locked { c in
            try c.query("""
                SELECT \(Self.sessionSelection) FROM sessions WHERE status IN ('created', 'capturing', 'processing') \
                AND expires_at_ms <= ?1 ORDER BY expires_at_ms LIMIT ?2
                """, [ms(now), .integer(Int64(limit))])
        }
        return try rows.map(Self.session)
    }

    /// The row of `s`, its engine state, risk signals, document, result and signed result sealed
    /// under `key` when given (`SessionSealing`).
    private static func values(_ s: SessionRecord, sealedWith key: [UInt8]?) throws(StoreError) -> [SQLValue] {
        let policy = try encode(s.policy)
        let risk = try s.risk.map { (r) throws(StoreError) in try encode(r) }
        let document = try s.document.map { (d) throws(StoreError) in try encode(d) }
        func text(_ value: String?) -> SQLValue {
            guard let value, let key else { return value.sql }
            return .text(SessionSealing.seal(value, key: key))
        }
        func bytes(_ value: [UInt8]?) -> SQLValue {
            guard let value else { return .null }
            return .blob(key.map { SessionSealing.seal(value, key: $0) } ?? value)
        }
        return [.text(s.id), .text(s.tenantId), .text(s.tokenHash), .text(s.status.rawValue), .text(policy), s.ssid.sql, s.externalRef.sql,
                s.locale.sql, s.theme.sql, ms(s.createdAt), ms(s.expiresAt), ms(s.updatedAt), bytes(s.engineState),
                bytes(s.result), text(s.signedResult), .integer(Int64(s.version)), s.outcome.sql, text(risk), s.redirectUrl.sql,
                text(document)]
    }

    /// A session from its row (`sessionSelection`: the columns, then the sealing key).
    private static func session(_ row: [SQLValue]) throws(StoreError) -> SessionRecord {
        let key = row.count > 20 ? row[20].bytes : nil
        func text(_ value: SQLValue, _ what: String) throws(StoreError) -> String? {
            guard let value = value.string else { return nil }
            guard let opened = SessionSealing.open(value, key: key) else { throw .corrupt("session \(what) does not open") }
            return opened
        }
        func bytes(_ value: SQLValue, _ what: String) throws(StoreError) -> [UInt8]? {
            guard let value = value.bytes else { return nil }
            guard let opened = SessionSealing.open(value, key: key) else { throw .corrupt("session \(what) does not open") }
            return opened
        }
        guard let status = row[3].string.flatMap(SessionStatus.init(rawValue:)) else { throw .corrupt("session status \(row[3])") }
        let policy = try PolicyCache.shared.policy(row[4].string ?? "")
        var s = SessionRecord(id: row[0].string ?? "", tenantId: row[1].string ?? "", tokenHash: row[2].string ?? "", status: status,
                              policy: policy, ssid: row[5].string, externalRef: row[6].string, locale: row[7].string, theme: row[8].string,
                              createdAt: date(row[9]), expiresAt: date(row[10]))
        s.updatedAt = date(row[11])
        s.engineState = try bytes(row[12], "engine state")
        s.result = try bytes(row[13], "result")
        s.signedResult = try text(row[14], "signed result")
        s.version = row[15].int ?? 0
        s.outcome = row[16].string
        s.redirectUrl = row[18].string
        if let risk = try text(row[17], "risk") {
            guard let decoded = try? JSONDecoder().decode(SessionRisk.self, from: Data(risk.utf8)) else { throw .corrupt("session risk") }
            s.risk = decoded
        }
        if let document = try text(row[19], "document") {
            guard let decoded = try? JSONDecoder().decode(DocumentResult.self, from: Data(document.utf8)) else { throw .corrupt("session document") }
            s.document = decoded
        }
        return s
    }

    private static func encode(_ value: some Encodable) throws(StoreError) -> String {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            throw .query("\(type(of: value)) does not encode: \(error)")
        }
    }

    // MARK: signing keys

    public func insertSigningKey(_ key: SigningKeyRecord) throws(StoreError) {
        try locked { c in try Self.insert(key, into: c) }
    }

    public func rotateSigningKey(to key: SigningKeyRecord, at date: Date) throws(StoreError) {
        try inTransaction { c in
            try c.query("UPDATE signing_keys SET retired_at_ms = ?1 WHERE retired_at_ms IS NULL", [ms(date)])
            try Self.insert(key, into: c)
        }
    }

    public func revokeSigningKey(kid: String, replacement: SigningKeyRecord, at date: Date) throws(StoreError) -> Bool {
        try inTransaction { c in
            guard let row = try c.query("SELECT retired_at_ms FROM signing_keys WHERE kid = ?1", [.text(kid)]).first else { return false }
            try c.query("UPDATE signing_keys SET retired_at_ms = COALESCE(retired_at_ms, ?2), revoked_at_ms = COALESCE(revoked_at_ms, ?2) WHERE kid = ?1",
                        [.text(kid), ms(date)])
            if row[0] == .null { try Self.insert(replacement, into: c) }
            return true
        }
    }

    public func signingKeys() throws(StoreError) -> [SigningKeyRecord] {
        try locked { c in
            try c.query("""
                SELECT kid, seed, public_key, created_at_ms, retired_at_ms, revoked_at_ms FROM signing_keys
                ORDER BY created_at_ms DESC, kid DESC
                """).map {
                SigningKeyRecord(kid: $0[0].string ?? "", seed: $0[1].bytes ?? [], publicKey: $0[2].bytes ?? [], createdAt: date($0[3]),
                                 retiredAt: $0[4] == .null ? nil : date($0[4]), revokedAt: $0[5] == .null ? nil : date($0[5]))
            }
        }
    }

    private static func insert(_ key: SigningKeyRecord, into c: any SQLConnection) throws {
        try c.query("""
            INSERT INTO signing_keys (kid, seed, public_key, created_at_ms, retired_at_ms, revoked_at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            """, [.text(key.kid), .blob(key.seed), .blob(key.publicKey), ms(key.createdAt), key.retiredAt.map(ms) ?? .null, key.revokedAt.map(ms) ?? .null])
    }

    // MARK: idempotency

    public func idempotency(tenantId: String, key: String) throws(StoreError) -> IdempotencyRecord? {
        try locked { c in
            try c.query("SELECT request_hash, status, body, created_at_ms FROM idempotency_keys WHERE tenant_id = ?1 AND key = ?2",
                        [.text(tenantId), .text(key)]).first.map {
                IdempotencyRecord(tenantId: tenantId, key: key, requestHash: $0[0].string ?? "", status: $0[1].int ?? 0, body: $0[2].bytes ?? [],
                                  createdAt: date($0[3]))
            }
        }
    }

    public func purgeIdempotency(before date: Date) throws(StoreError) -> Int {
        try locked { c in
            try c.query("DELETE FROM idempotency_keys WHERE created_at_ms < ?1", [ms(date)])
            return c.changes
        }
    }

    public func insertIdempotency(_ record: IdempotencyRecord, replacingOlderThan expired: Date) throws(StoreError) {
        try locked { c in
            try c.transaction {
                try c.query("DELETE FROM idempotency_keys WHERE tenant_id = ?1 AND key = ?2 AND created_at_ms < ?3",
                            [.text(record.tenantId), .text(record.key), ms(expired)])
                try c.query("INSERT INTO idempotency_keys (tenant_id, key, request_hash, status, body, created_at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                            [.text(record.tenantId), .text(record.key), .text(record.requestHash), .integer(Int64(record.status)), .blob(record.body),
                             ms(record.createdAt)])
            }
        }
    }

    // MARK: webhooks

    private static let webhookColumns = "id, tenant_id, session_id, event, payload, state, attempts, next_attempt_at_ms, last_error, created_at_ms"

    public func pendingWebhooks() throws(StoreError) -> (count: Int, oldestCreatedAt: Date?) {
        try reading { c in
            let row = try c.query("SELECT COUNT(*), MIN(created_at_ms) FROM webhook_outbox WHERE state = 'pending'").first
            return (row?[0].int ?? 0, row.flatMap { $0[1].int == nil ? nil : date($0[1]) })
        }
    }

    public func dueWebhooks(now: Date, limit: Int, excluding tenants: Set<String>) throws(StoreError) -> [WebhookDelivery] {
        let excluded = tenants.sorted()
        let placeholders = excluded.indices.map { "?\($0 + 3)" }.joined(separator: ", ")
        return try locked { c in
            try c.query("""
                SELECT \(Self.webhookColumns) FROM webhook_outbox WHERE state = 'pending' AND next_attempt_at_ms <= ?1 AND claimed_until_ms <= ?1 \
                \(excluded.isEmpty ? "" : "AND tenant_id NOT IN (\(placeholders)) ")ORDER BY next_attempt_at_ms, id LIMIT ?2
                """, [ms(now), .integer(Int64(limit))] + excluded.map { .text($0) }).map(Self.webhook)
        }
    }

    public func claimWebhook(id: String, now: Date, until: Date) throws(StoreError) -> Bool {
        try locked { c in
            try c.query("""
                UPDATE webhook_outbox SET claimed_until_ms = ?3 \
                WHERE id = ?1 AND state = 'pending' AND next_attempt_at_ms <= ?2 AND claimed_until_ms <= ?2
                """, [.text(id), ms(now), ms(until)])
            return c.changes == 1
        }
    }

    public func updateWebhook(_ delivery: WebhookDelivery) throws(StoreError) {
        try locked { c in
            try c.query("UPDATE webhook_outbox SET state = ?2, attempts = ?3, next_attempt_at_ms = ?4, last_error = ?5, claimed_until_ms = 0 WHERE id = ?1",
                        [.text(delivery.id), .text(delivery.state.rawValue), .integer(Int64(delivery.attempts)), ms(delivery.nextAttemptAt),
                         delivery.lastError.sql])
        }
    }

    public func webhooks(tenantId: String?, limit: Int) throws(StoreError) -> [WebhookDelivery] {
        try locked { c in
            if let tenantId {
                return try c.query("SELECT \(Self.webhookColumns) FROM webhook_outbox WHERE tenant_id = ?1 ORDER BY created_at_ms DESC, id LIMIT ?2",
                                   [.text(tenantId), .integer(Int64(limit))]).map(Self.webhook)
            }
            return try c.query("SELECT \(Self.webhookColumns) FROM webhook_outbox ORDER BY created_at_ms DESC, id LIMIT ?1",
                               [.integer(Int64(limit))]).map(Self.webhook)
        }
    }

    private static func insert(_ d: WebhookDelivery, into c: any SQLConnection) throws {
        try c.query("INSERT INTO webhook_outbox (\(webhookColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                    [.text(d.id), .text(d.tenantId), .text(d.sessionId), .text(d.event), .blob(d.payload), .text(d.state.rawValue),
                     .integer(Int64(d.attempts)), ms(d.nextAttemptAt), d.lastError.sql, ms(d.createdAt)])
    }

    private static func webhook(_ row: [SQLValue]) -> WebhookDelivery {
        var d = WebhookDelivery(id: row[0].string ?? "", tenantId: row[1].string ?? "", sessionId: row[2].string ?? "", event: row[3].string ?? "",
                                payload: row[4].bytes ?? [], createdAt: date(row[9]))
        d.state = row[5].string.flatMap(WebhookDelivery.State.init(rawValue:)) ?? .pending
        d.attempts = row[6].int ?? 0
        d.nextAttemptAt = date(row[7])
        d.lastError = row[8].string
        return d
    }
}

/// Dates are stored as integer milliseconds since 1970.
func ms(_ date: Date) -> SQLValue { .integer(Int64((date.timeIntervalSince1970 * 1000).rounded())) }
func date(_ value: SQLValue) -> Date { Date(timeIntervalSince1970: (value.double ?? 0) / 1000) }
