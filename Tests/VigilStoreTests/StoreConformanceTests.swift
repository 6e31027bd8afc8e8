import Foundation
import Synchronization
import Testing
import VigilCore
@testable import VigilStore
import VigilTestSupport

/// The databases every store test runs against.
enum Backend: String, CaseIterable, CustomTestStringConvertible {
    case sqlite, postgres
    var testDescription: String { rawValue }
}

/// One suite, two real databases: every test runs against SQLite and PostgreSQL.
@Suite(.scratchFolder) struct StoreConformanceTests {
    /// A new SQLite file in the running test's scratch folder.
    static func temporaryPath() -> String { ScratchFolder.path("vigil.sqlite").path }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Where a new, empty store of `backend` lives (a file path or libpq settings).
    static func location(_ backend: Backend) throws -> String {
        switch backend {
        case .sqlite: temporaryPath()
        case .postgres: try TestPostgres.newDatabase()
        }
    }

    static func open(_ backend: Backend, at location: String) throws -> SQLStore {
        switch backend {
        case .sqlite: try SQLiteStore(path: location)
        case .postgres: try PostgresStore(url: location)
        }
    }

    static func seeded(_ backend: Backend, at location: String? = nil) throws -> SQLStore {
        let store = try open(backend, at: location ?? Self.location(backend))
        for name in ["a", "b"] {
            try store.insertTenant(Tenant(id: "tn_\(name)", name: name, createdAt: now))
            _ = try store.insertAPIKey(APIKeyRecord(id: "ak_\(name)", tenantId: "tn_\(name)", prefix: nil, createdAt: now), hash: "hash-\(name)", maxLive: 2)
        }
        return store
    }

    static func session(_ id: String, tenant: String = "tn_a", token: String? = nil) -> SessionRecord {
        SessionRecord(id: id, tenantId: tenant, tokenHash: token ?? "token-\(id)", policy: .preset(.medium), ssid: "device-1",
                      externalRef: "order-7", createdAt: now, expiresAt: now.addingTimeInterval(600))
    }

    @Test(arguments: Backend.allCases) func migrationsRunOnceAndReopeningKeepsData(_ backend: Backend) throws {
        let location = try Self.location(backend)
        do {
            let store = try Self.seeded(backend, at: location)
            try store.insertSession(Self.session("ses_1"))
            #expect(try store.appliedMigrations() == Migrations.steps.map(\.version))
        }
        let reopened = try Self.open(backend, at: location)
        #expect(try reopened.appliedMigrations() == Migrations.steps.map(\.version))
        #expect(try reopened.session(id: "ses_1", tenantId: "tn_a")?.externalRef == "order-7")
        #expect(try reopened.tenants().map(\.id) == ["tn_a", "tn_b"])
    }

    @Test(arguments: Backend.allCases) func apiKeysResolveToTheirTenantOnly(_ backend: Backend) throws {
        let store = try Self.seeded(backend)
        #expect(try store.tenant(apiKeyHash: "hash-a")?.id == "tn_a")
        #expect(try store.tenant(apiKeyHash: "hash-b")?.id == "tn_b")
        #expect(try store.tenant(apiKeyHash: "hash-c") == nil)
        #expect(throws: StoreError.self) { try store.insertAPIKey(APIKeyRecord(id: "ak_b2", tenantId: "tn_b", prefix: nil, createdAt: Self.now), hash: "hash-a", maxLive: 2) }
        #expect(throws: StoreError.self) { try store.insertAPIKey(APIKeyRecord(id: "ak_x", tenantId: "tn_missing", prefix: nil, createdAt: Self.now), hash: "hash-x", maxLive: 2) }
    }

    @Test(arguments: Backend.allCases) func aTenantCannotSeeAnotherTenantsSession(_ backend: Backend) throws {
        let store = try Self.seeded(backend)
        try store.insertSession(Self.session("ses_1", tenant: "tn_a"))
        #expect(try store.session(id: "ses_1", tenantId: "tn_a") != nil)
        #expect(try store.session(id: "ses_1", tenantId: "tn_b") == nil)
        #expect(try store.sessions(tenantId: "tn_b", limit: 10).isEmpty)
        #expect(try store.sessions(tenantId: "tn_a", limit: 10).map(\.id) == ["ses_1"])
    }

    @Test(arguments: Backend.allCases) func sessionsAreFoundByTokenHashAndRoundTripEveryField(_ backend: Backend) throws {
        let store = try Self.seeded(backend)
        var record = Self.session("ses_1")
        record.locale = "pt-BR"
        record.theme = "dark"
        record.risk = SessionRisk(velocity: .init(failedSessions: 6, windowSeconds: 180, raised: true))
        try store.insertSession(record)
        #expect(try store.session(tokenHash: "token-ses_1") == record)
        #expect(try store.session(tokenHash: "token-other") == nil)
        #expect(throws: StoreError.self) { try store.insertSession(Self.session("ses_2", token: "token-ses_1")) }
    }

    /// A frame costs one write: its hash goes in the session's update, and not when the update is stale.
    @Test(arguments: Backend.allCases) func aFramesHashIsWrittenWithItsSessionUpdate(_ backend: Backend) throws {
        let store = try Self.seeded(backend)
        let deadline = Self.now.addingTimeInterval(60)
        for id in ["ses_1", "ses_2"] { try store.insertSession(Self.session(id)) }
        try store.insertFrameHash(7, sessionId: "ses_2", deleteAfter: deadline)
        let read = try #require(try store.session(id: "ses_1", tenantId: "tn_a"))
        try store.updateSession(read, enqueue: nil, personalData: .keep, frameHash: FrameHash(7, deleteAfter: deadline))
        #expect(try store.framesSeenElsewhere(sessionId: "ses_1") == 1)
        #expect(throws: StoreError.staleVersion) {
            try store.updateSession(read, enqueue: nil, personalData: .keep, frameHash: FrameHash(8, deleteAfter: deadline))
        }
        try store.insertFrameHash(8, sessionId: "ses_2", deleteAfter: deadline)
        #expect(try store.framesSeenElsewhere(sessionId: "ses_1") == 1)
    }

    @Test(arguments: Backend.allCases) func anUpdateFromAStaleReadIsRefusedAndChangesNothing(_ backend: Backend) throws {
        let store = try Self.seeded(backend)
        try store.insertSession(Self.session("ses_1"))
        var first = try #require(try store.session(id: "ses_1", tenantId: "tn_a"))
        let second = first
        first.status = .capturing
        first.engineState = [1, 2, 3]
        let stored = try store.updateSession(first, enqueue: nil)
        #expect(stored.version == 1)
        var late = second
        late.status = .cancelled
        #expect(throws: StoreError.staleVersion) { try store.updateSession(late, enqueue: nil) }
        let now = try #require(try store.session(id: "ses_1", tenantId: "tn_a"))
        #expect(now.status == .capturing && now.engineState == [1, 2, 3] && now.version == 1)
    }

    @Test(arguments: Backend.allCases) func aCompletedSessionAndItsWebhookAreWrittenTogether(_ backend: Backend) throws {
        let store = try Self.seeded(backend)
        try store.insertSession(Self.session("ses_1"))
        var record = try #require(try store.session(id: "ses_1", tenantId: "tn_a"))
        record.status = .completed
        record.signedResult = "a.b.c"
        let event = WebhookDelivery(id: "evt_1", tenantId: "tn_a", sessionId: "ses_1", event: "session.completed", payload: Array("{}".utf8),
                                    createdAt: Self.now)
        try store.updateSession(record, enqueue: event)
        #expect(try store.dueWebhooks(now: Self.now, limit: 10).map(\.id) == ["evt_1"])
        #expect(try store.dueWebhooks(now: Self.now, limit: 10, excluding: ["tn_a", "tn_x"]).isEmpty)
        #expect(try store.dueWebhooks(now: Self.now, limit: 10, excluding: ["tn_b"]).map(\.id) == ["evt_1"])
        #expect(try store.pendingWebhooks().count == 1 && store.pendingWebhooks().oldestCreatedAt == Self.now)
        // A second completion of the same stale record queues nothing more.
        #expect(throws: StoreError.staleVersion) { try store.updateSession(record, enqueue: WebhookDelivery(
            id: "evt_2", tenantId: "tn_a", sessionId: "ses_1", event: "session.completed", payload: [], createdAt: Self.now)) }
        #expect(try store.webhooks(tenantId: nil, limit: 10).map(\.id) == ["evt_1"])
    }

    @Test(arguments: Backend.allCases) func webhookRetriesAreScheduledAndDeliveredOnesLeaveTheQueue(_ backend: Backend) throws {
        let store = try Self.seeded(backend)
        var event = WebhookDelivery(id: "evt_1", tenantId: "tn_a", sessionId: "ses_1", event: "session.expired", payload: [], createdAt: Self.now)
        var record = Self.session("ses_1")
        try store.insertSession(record)
        record = try #require(try store.session(id: "ses_1", tenantId: "tn_a"))
        try store.updateSession(record, enqueue: event)
        event.attempts = 1
        event.nextAttemptAt = Self.now.addingTimeInterval(30)
        event.lastError = "HTTP 500"
        try store.updateWebhook(event)
        #expect(try store.dueWebhooks(now: Self.now, limit: 10).isEmpty)
        #expect(try store.dueWebhooks(now: Self.now.addingTimeInterval(31), limit: 10).first?.lastError == "HTTP 500")
        event.state = .delivered
        try store.updateWebhook(event)
        #expect(try store.dueWebhooks(now: Self.now.addingTimeInterval(3600), limit: 10).isEmpty)
        #expect(try store.webhooks(tenantId: "tn_a", limit: 10).first?.state == .delivered)
        #expect(try store.webhooks(tenantId: "tn_b", limit: 10).isEmpty)
    }

    /// Two nodes on one database: a delivery is claimed by one of them at a time, even when
    /// both try at once, until its lease runs out or its attempt is written.
    @Test(arguments: Backend.allCases) func aDeliveryIsClaimedByOneNodeUntilItsLeaseRunsOut(_ backend: Backend) throws {
        let location = try Self.location(backend)
        let nodeA = try Self.seeded(backend, at: location), nodeB = try Self.open(backend, at: location)
        var record = Self.session("ses_1")
        try nodeA.insertSession(record)
        record = try #require(try nodeA.session(id: "ses_1", tenantId: "tn_a"))
        for i in 0..<20 {
            try nodeA.updateSession(record, enqueue: WebhookDelivery(id: "evt_\(i)", tenantId: "tn_a", sessionId: "ses_1", event: "session.completed",
                                                                    payload: [], createdAt: Self.now))
            record.version += 1
        }
        let lease = Self.now.addingTimeInterval(60)
        let wins = Mutex<[String: Int]>([:])
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            let node = worker % 2 == 0 ? nodeA : nodeB
            for i in 0..<20 where (try? node.claimWebhook(id: "evt_\(i)", now: Self.now, until: lease)) == true {
                wins.withLock { $0["evt_\(i)", default: 0] += 1 }
            }
        }
        #expect(wins.withLock { $0 } == Dictionary(uniqueKeysWithValues: (0..<20).map { ("evt_\($0)", 1) }))
        #expect(try nodeB.dueWebhooks(now: Self.now, limit: 50).isEmpty)
        // The claimant's node died: once the lease ran out, the other node takes it.
        #expect(try nodeB.dueWebhooks(now: lease, limit: 50).count == 20)
        #expect(try nodeB.claimWebhook(id: "evt_0", now: lease, until: lease.addingTimeInterval(60)))
        // Writing the attempt lets the claim go; a delivered one is never claimed again.
        var delivered = try #require(try nodeB.webhooks(sessionId: "ses_1").first { $0.id == "evt_0" })
        delivered.state = .delivered
        try nodeB.updateWebhook(delivered)
        #expect(try !nodeA.claimWebhook(id: "evt_0", now: lease, until: lease.addingTimeInterval(60)))
        var retried = try #require(try nodeB.webhooks(sessionId: "ses_1").first { $0.id == "evt_1" })
        #expect(try nodeB.claimWebhook(id: "evt_1", now: lease, until: lease.addingTimeInterval(60)))
        retried.attempts = 1
        try nodeB.updateWebhook(retried)
        #expect(try nodeA.claimWebhook(id: "evt_1", now: lease, until: lease.addingTimeInterval(60)))
    }

    @Test(arguments: Backend.allCases) func expiredSessionsAreTheUnfinishedOnesPastTheirDeadline(_ backend: Backend) throws {
        let store = try Self.seeded(backend)
        try store.insertSession(Self.session("ses_open"))
        var done = Self.session("ses_done")
        try store.insertSession(done)
        done = try #require(try store.session(id: "ses_done", tenantId: "tn_a"))
        done.status = .completed
        try store.updateSession(done, enqueue: nil)
        #expect(try store.expiredSessions(now: Self.now, limit: 10).isEmpty)
        #expect(try store.expiredSessions(now: Self.now.addingTimeInterval(601), limit: 10).map(\.id) == ["ses_open"])
    }

    @Test(arguments: Backend.allCases) func rotationRetiresTheActiveKeyAndKeepsItListed(_ backend: Backend) throws {
        let store = try Self.seeded(backend)
        try store.insertSigningKey(SigningKeyRecord(kid: "k1", seed: [1], publicKey: [2], createdAt: Self.now))
        try store.rotateSigningKey(to: SigningKeyRecord(kid: "k2", seed: [3], publicKey: [4], createdAt: Self.now.addingTimeInterval(1)),
                                   at: Self.now.addingTimeInterval(1))
        let keys = try store.signingKeys()
        #expect(keys.map(\.kid) == ["k2", "k1"])
        #expect(keys[0].retiredAt == nil && keys[1].retiredAt != nil)
    }

    @Test(arguments: Backend.allCases) func revokingTheActiveKeyHandsOverToItsReplacementAndARetiredKeyJustLeaves(_ backend: Backend) throws {
        let store = try Self.seeded(backend)
        try store.insertSigningKey(SigningKeyRecord(kid: "k1", seed: [1], publicKey: [2], createdAt: Self.now))
        try store.rotateSigningKey(to: SigningKeyRecord(kid: "k2", seed: [3], publicKey: [4], createdAt: Self.now.addingTimeInterval(1)),
                                   at: Self.now.addingTimeInterval(1))
        let later = Self.now.addingTimeInterval(2)
        #expect(try store.revokeSigningKey(kid: "k1", replacement: SigningKeyRecord(kid: "unused", seed: [5], publicKey: [6], createdAt: later), at: later))
        #expect(try store.signingKeys().map(\.kid) == ["k2", "k1"])
        #expect(try store.revokeSigningKey(kid: "k2", replacement: SigningKeyRecord(kid: "k3", seed: [7], publicKey: [8], createdAt: later), at: later))
        let keys = try store.signingKeys()
        #expect(keys.map(\.kid) == ["k3", "k2", "k1"])
        #expect(keys[0].retiredAt == nil && keys[0].revokedAt == nil)
        #expect(keys[1].retiredAt == later && keys[1].revokedAt == later && keys[2].retiredAt == Self.now.addingTimeInterval(1) && keys[2].revokedAt == later)
        #expect(try !store.revokeSigningKey(kid: "k9", replacement: SigningKeyRecord(kid: "k4", seed: [9], publicKey: [9], createdAt: later), at: later))
        #expect(try store.signingKeys().count == 3)
    }

    @Test(arguments: Backend.allCases) func idempotencyKeysArePerTenantAndWrittenOnce(_ backend: Backend) throws {
        let store = try Self.seeded(backend)
        let record = IdempotencyRecord(tenantId: "tn_a", key: "k", requestHash: "h", status: 201, body: [1], createdAt: Self.now)
        let expired = Self.now.addingTimeInterval(-86400)
        try store.insertIdempotency(record, replacingOlderThan: expired)
        #expect(try store.idempotency(tenantId: "tn_a", key: "k") == record)
        #expect(try store.idempotency(tenantId: "tn_b", key: "k") == nil)
        #expect(throws: StoreError.self) { try store.insertIdempotency(record, replacingOlderThan: expired) }
        // An expired answer the purge has not reached yet gives way to a new one.
        let next = IdempotencyRecord(tenantId: "tn_a", key: "k", requestHash: "h2", status: 201, body: [2], createdAt: Self.now.addingTimeInterval(86401))
        try store.insertIdempotency(next, replacingOlderThan: Self.now.addingTimeInterval(1))
        #expect(try store.idempotency(tenantId: "tn_a", key: "k") == next)
    }

    @Test(arguments: Backend.allCases) func personalDataIsKeptUntilItsDeadlineOrErasedAtOnce(_ backend: Backend) throws {
        let store = try Self.seeded(backend)
        let later = Self.now.addingTimeInterval(7 * 86400)
        for id in ["ses_kept", "ses_erased"] {
            var record = Self.session(id)
            try store.insertSession(record, reference: ReferenceFace(descriptor: [1, 2, 3], deleteAfter: later))
            record = try store.updateSession(record, enqueue: nil, personalData: .storeAuditImage(AuditImage(jpeg: [0xFF, 0xD8, 1], deleteAfter: later)))
            // A better frame replaces the image.
            try store.updateSession(record, enqueue: nil, personalData: .storeAuditImage(AuditImage(jpeg: [0xFF, 0xD8, 2], deleteAfter: later)))
        }
        #expect(try store.auditImage(sessionId: "ses_kept")?.jpeg == [0xFF, 0xD8, 2])
        #expect(try store.referenceFace(sessionId: "ses_kept")?.descriptor == [1, 2, 3])
        let erased = try #require(try store.session(id: "ses_erased", tenantId: "tn_a"))
        try store.updateSession(erased, enqueue: nil, personalData: .erase(webhookPayloads: [:]))
        #expect(try store.auditImage(sessionId: "ses_erased") == nil && store.referenceFace(sessionId: "ses_erased") == nil)
        #expect(try store.purgePersonalData(now: later.addingTimeInterval(-1), webhooksBefore: .distantPast) == 0)
        #expect(try store.auditImage(sessionId: "ses_kept") != nil)
        #expect(try store.purgePersonalData(now: later, webhooksBefore: .distantPast) == 2)
        #expect(try store.auditImage(sessionId: "ses_kept") == nil && store.referenceFace(sessionId: "ses_kept") == nil)
        #expect(try store.session(id: "ses_kept", tenantId: "tn_a") != nil)   // the session and its result stay
    }

    @Test(arguments: Backend.allCases) func erasingRewritesOnlyUndeliveredWebhooksAndThePurgeDropsOldDeliveredOnes(_ backend: Backend) throws {
        let store = try Self.seeded(backend)
        let record = Self.session("ses_w")
        try store.insertSession(record)
        func delivery(_ id: String, _ state: WebhookDelivery.State, age: TimeInterval) throws {
            var d = WebhookDelivery(id: id, tenantId: "tn_a", sessionId: "ses_w", event: "session.completed", payload: [1], createdAt: Self.now.addingTimeInterval(-age))
            try store.updateSession(try #require(try store.session(id: "ses_w", tenantId: "tn_a")), enqueue: d)
            d.state = state
            try store.updateWebhook(d)
        }
        try delivery("evt_pending", .pending, age: 10)
        try delivery("evt_delivered", .delivered, age: 100)
        try delivery("evt_dead", .dead, age: 10)
        let current = try #require(try store.session(id: "ses_w", tenantId: "tn_a"))
        try store.updateSession(current, enqueue: nil, personalData: .erase(webhookPayloads: ["evt_pending": [2], "evt_delivered": [2]]))
        #expect(try store.webhooks(sessionId: "ses_w").map { "\($0.id) \($0.payload)" } == ["evt_delivered [1]", "evt_dead [1]", "evt_pending [2]"])
        #expect(try store.purgePersonalData(now: Self.now, webhooksBefore: Self.now.addingTimeInterval(-50)) == 1)
        #expect(try store.webhooks(sessionId: "ses_w").map(\.id) == ["evt_dead", "evt_pending"])
    }

    @Test(arguments: Backend.allCases) func failedSessionsAreCountedPerTenantAndSsidInTheWindow(_ backend: Backend) throws {
        let store = try Self.seeded(backend)
        for (i, (tenant, outcome, age)) in [("tn_a", "failed", 10.0), ("tn_a", "failed", 100), ("tn_a", "passed", 10), ("tn_a", "failed", 400),
                                             ("tn_b", "failed", 10)].enumerated() {
            var record = Self.session("ses_\(i)", tenant: tenant)
            try store.insertSession(record)
            record.outcome = outcome
            record.status = .completed
            record.updatedAt = Self.now.addingTimeInterval(-age)
            try store.updateSession(record, enqueue: nil)
        }
        #expect(try store.failedSessions(tenantId: "tn_a", ssid: "device-1", since: Self.now.addingTimeInterval(-180)) == 2)
        #expect(try store.failedSessions(tenantId: "tn_a", ssid: "device-2", since: Self.now.addingTimeInterval(-180)) == 0)
        #expect(try store.failedSessions(tenantId: "tn_b", ssid: "device-1", since: Self.now.addingTimeInterval(-180)) == 1)
    }

    @Test(arguments: Backend.allCases) func framesSeenByAnotherSessionAreCountedOnceEachAndPurged(_ backend: Backend) throws {
        let store = try Self.seeded(backend)
        let deadline = Self.now.addingTimeInterval(60)
        for id in ["ses_1", "ses_2"] { try store.insertSession(Self.session(id)) }
        for hash: UInt64 in [1, 2, 3, 3, .max] { try store.insertFrameHash(hash, sessionId: "ses_1", deleteAfter: deadline) }
        for hash: UInt64 in [3, .max, 9] { try store.insertFrameHash(hash, sessionId: "ses_2", deleteAfter: deadline) }
        #expect(try store.framesSeenElsewhere(sessionId: "ses_1") == 2)
        #expect(try store.framesSeenElsewhere(sessionId: "ses_2") == 2)
        #expect(try store.purgePersonalData(now: deadline, webhooksBefore: .distantPast) == 7)
        #expect(try store.framesSeenElsewhere(sessionId: "ses_1") == 0)
    }

    @Test func anUnopenableDatabaseIsATypedError() {
        #expect(throws: StoreError.self) { try SQLiteStore(path: "/proc/vigil/not-here/db.sqlite") }
        do {
            _ = try PostgresStore(url: "host=/nonexistent/vigil user=vigil dbname=vigil")
            Issue.record("a server that is not there was opened")
        } catch {
            guard case .unavailable = error else { Issue.record("\(error)"); return }
        }
    }

    /// The server dropped every connection (a restart, a network failure): a call on a lost
    /// connection fails as `unavailable`, never half done, and the next one reconnects.
    @Test func aStoreReconnectsAfterThePostgreSQLServerDroppedItsConnection() throws {
        let location = try TestPostgres.newDatabase()
        let store = try PostgresStore(url: location, connections: 1)
        try store.insertTenant(Tenant(id: "tn_a", name: "a", createdAt: Self.now))
        try TestPostgres.dropConnections(location)
        do {
            try store.insertSession(Self.session("ses_1"), reference: ReferenceFace(descriptor: [1], deleteAfter: Self.now))
            Issue.record("a statement on a dropped connection succeeded")
        } catch {
            guard case .unavailable = error else { Issue.record("\(error)"); return }
        }
        #expect(try store.session(id: "ses_1", tenantId: "tn_a") == nil && store.referenceFace(sessionId: "ses_1") == nil)
        try store.insertSession(Self.session("ses_1"), reference: ReferenceFace(descriptor: [1], deleteAfter: Self.now))
        #expect(try store.referenceFace(sessionId: "ses_1")?.descriptor == [1])
    }

    /// Nodes starting together on an empty database: the advisory lock lets each step run once.
    @Test func nodesMigratingTogetherApplyEachStepOnce() throws {
        let location = try TestPostgres.newDatabase()
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do { _ = try PostgresStore(url: location) } catch { failures.withLock { $0.append("\(error)") } }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(try PostgresStore(url: location).appliedMigrations() == Migrations.steps.map(\.version))
    }

    @Test(arguments: Backend.allCases) func concurrentWritersFromManyThreadsLoseNothing(_ backend: Backend) throws {
        let store = try Self.seeded(backend)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for i in 0..<25 { try? store.insertSession(Self.session("ses_\(worker)_\(i)")) }
        }
        #expect(try store.sessions(tenantId: "tn_a", limit: 1000).count == 200)
    }
}
