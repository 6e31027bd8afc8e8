import Foundation

/// Everything Vigil persists. Every method is one transaction; implementations are safe to call
/// from any thread. SQLite is the embedded default; PostgreSQL implements the same protocol.
public protocol Store: Sendable {
    /// Adds a tenant.
    func insertTenant(_ tenant: Tenant) throws(StoreError)
    /// The tenant with `id`.
    func tenant(id: String) throws(StoreError) -> Tenant?
    /// Every tenant, oldest first.
    func tenants() throws(StoreError) -> [Tenant]
    /// Replaces a tenant's mutable fields (name, webhook).
    func updateTenant(_ tenant: Tenant) throws(StoreError)
    /// Stores `key` (whose secret hashes to `hash`; only the hash is kept) when its tenant has
    /// fewer than `maxLive` live keys; false when it has that many.
    func insertAPIKey(_ key: APIKeyRecord, hash: String, maxLive: Int) throws(StoreError) -> Bool
    /// A tenant's API keys, live and revoked, oldest first.
    func apiKeys(tenantId: String) throws(StoreError) -> [APIKeyRecord]
    /// The key whose secret hashes to `hash`, live or revoked.
    func apiKey(hash: String) throws(StoreError) -> APIKeyRecord?
    /// Revokes key `id` (of `tenantId` when given) at `date`, unless `keepingOne` and it is its
    /// tenant's last live key; the key as revoked, nil when there is no such live key (or it is
    /// the last one kept).
    func revokeAPIKey(id: String, tenantId: String?, at date: Date, keepingOne: Bool) throws(StoreError) -> APIKeyRecord?
    /// Deletes a tenant and everything of it: sessions with their images, faces and frame
    /// hashes, webhooks, idempotent answers and API keys, in one transaction. False when there
    /// is no such tenant.
    func deleteTenant(id: String) throws(StoreError) -> Bool
    /// The tenant an API key hash belongs to.
    func tenant(apiKeyHash: String) throws(StoreError) -> Tenant?
    /// A tenant's capture-page branding (opaque to the store), when set.
    func branding(tenantId: String) throws(StoreError) -> [UInt8]?
    /// Sets or (nil) clears a tenant's branding.
    func setBranding(_ branding: [UInt8]?, tenantId: String) throws(StoreError)

    /// Adds a session, with its reference face when it has one.
    func insertSession(_ session: SessionRecord, reference: ReferenceFace?) throws(StoreError)
    /// The session `id` if it belongs to `tenantId` (nil otherwise: other tenants' sessions do not exist).
    func session(id: String, tenantId: String) throws(StoreError) -> SessionRecord?
    /// The session whose token hashes to `tokenHash`.
    func session(tokenHash: String) throws(StoreError) -> SessionRecord?
    /// The head of that session only (no engine state, no result): what polls read.
    func sessionHead(tokenHash: String) throws(StoreError) -> SessionHead?
    /// Writes `session` if its version is still the stored one (then stored version + 1), and
    /// queues `webhook`, applies `personalData` and records `frameHash` in the same transaction
    /// (a frame costs one write). Returns the record as stored.
    @discardableResult
    func updateSession(_ session: SessionRecord, enqueue webhook: WebhookDelivery?, personalData: PersonalDataChange,
                       frameHash: FrameHash?) throws(StoreError) -> SessionRecord
    /// Sessions, newest first, of one tenant or all.
    func sessions(tenantId: String?, limit: Int) throws(StoreError) -> [SessionRecord]
    /// Unfinished sessions whose `expiresAt` has passed.
    func expiredSessions(now: Date, limit: Int) throws(StoreError) -> [SessionRecord]
    /// How many of a tenant's sessions with `ssid` failed since `since`.
    func failedSessions(tenantId: String, ssid: String, since: Date) throws(StoreError) -> Int

    /// The session's reference face, until erased or purged.
    func referenceFace(sessionId: String) throws(StoreError) -> ReferenceFace?
    /// The session's audit image, until erased or purged.
    func auditImage(sessionId: String) throws(StoreError) -> AuditImage?
    /// The session's document image, until erased or purged.
    func documentImage(sessionId: String) throws(StoreError) -> DocumentImage?
    /// Records that session `sessionId` received a frame whose bytes hash to `hash`.
    func insertFrameHash(_ hash: UInt64, sessionId: String, deleteAfter: Date) throws(StoreError)
    /// How many of the session's distinct frames were also received by another session.
    func framesSeenElsewhere(sessionId: String) throws(StoreError) -> Int
    /// Deletes audit images, reference faces, document images and frame hashes past their deadline, and delivered
    /// or dead webhooks (their payloads carry results) made before `webhooksBefore`; returns how many.
    func purgePersonalData(now: Date, webhooksBefore: Date) throws(StoreError) -> Int
    /// Ended sessions last changed before `endedBefore` whose personal data was not erased yet
    /// (`PersonalDataChange.erase` marks it erased), oldest first.
    func sessionsHoldingPersonalData(endedBefore: Date, limit: Int) throws(StoreError) -> [SessionRecord]
    /// Makes what was deleted or overwritten unreadable in the database's own files: SQLite
    /// (with `secure_delete`) checkpoints its write-ahead log into the zeroed pages and truncates
    /// it; PostgreSQL vacuums the tables that hold personal data and ends the log segments that
    /// still hold it (a checkpoint, a segment switch, a checkpoint; with
    /// `wal_recycle = off` the old segments are deleted). False when part of it could not be
    /// done (the database role may not checkpoint).
    @discardableResult
    func reclaim() throws(StoreError) -> Bool

    /// Adds a signing key.
    func insertSigningKey(_ key: SigningKeyRecord) throws(StoreError)
    /// Marks every active key retired at `date` and adds `key`, in one transaction.
    func rotateSigningKey(to key: SigningKeyRecord, at date: Date) throws(StoreError)
    /// Marks key `kid` retired and revoked at `date`; when it was the active key, `replacement`
    /// becomes the active one in the same transaction. False when there is no such key.
    func revokeSigningKey(kid: String, replacement: SigningKeyRecord, at date: Date) throws(StoreError) -> Bool
    /// Every signing key, newest first.
    func signingKeys() throws(StoreError) -> [SigningKeyRecord]

    /// The stored answer for a tenant's idempotency key.
    func idempotency(tenantId: String, key: String) throws(StoreError) -> IdempotencyRecord?
    /// Deletes the stored answers made before `date`; returns how many.
    func purgeIdempotency(before date: Date) throws(StoreError) -> Int
    /// Stores an answer for an idempotency key. A stored answer created before `expired` (one
    /// the purge has not reached yet) is replaced; a newer one is a conflict.
    func insertIdempotency(_ record: IdempotencyRecord, replacingOlderThan expired: Date) throws(StoreError)

    /// Pending deliveries due at `now` and not claimed, oldest first, leaving out the tenants in `excluding`
    /// (those whose delivery lanes are full, so that the others are not starved behind them).
    func dueWebhooks(now: Date, limit: Int, excluding tenants: Set<String>) throws(StoreError) -> [WebhookDelivery]
    /// The deliveries waiting to go out (first tries and retries), and when the oldest was made.
    func pendingWebhooks() throws(StoreError) -> (count: Int, oldestCreatedAt: Date?)
    /// Claims delivery `id` until `until` if it is pending, due at `now` and not claimed by
    /// anyone else (another node) whose claim still runs; whether this call got it. Only the
    /// claimant sends it.
    func claimWebhook(id: String, now: Date, until: Date) throws(StoreError) -> Bool
    /// Writes a delivery's state after an attempt, and lets its claim go.
    func updateWebhook(_ delivery: WebhookDelivery) throws(StoreError)
    /// Deliveries, newest first, of one tenant or all.
    func webhooks(tenantId: String?, limit: Int) throws(StoreError) -> [WebhookDelivery]
    /// A session's webhooks, oldest first.
    func webhooks(sessionId: String) throws(StoreError) -> [WebhookDelivery]
}

extension Store {
    /// Adds a session without a reference face.
    public func insertSession(_ session: SessionRecord) throws(StoreError) { try insertSession(session, reference: nil) }

    /// Pending deliveries due at `now`, oldest first.
    public func dueWebhooks(now: Date, limit: Int) throws(StoreError) -> [WebhookDelivery] {
        try dueWebhooks(now: now, limit: limit, excluding: [])
    }

    /// Writes `session` (see the requirement), leaving its personal data as it is.
    @discardableResult
    public func updateSession(_ session: SessionRecord, enqueue webhook: WebhookDelivery?) throws(StoreError) -> SessionRecord {
        try updateSession(session, enqueue: webhook, personalData: .keep, frameHash: nil)
    }

    /// Writes `session` (see the requirement) without a frame hash.
    @discardableResult
    public func updateSession(_ session: SessionRecord, enqueue webhook: WebhookDelivery?,
                              personalData: PersonalDataChange) throws(StoreError) -> SessionRecord {
        try updateSession(session, enqueue: webhook, personalData: personalData, frameHash: nil)
    }
}
