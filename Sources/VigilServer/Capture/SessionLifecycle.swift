import Foundation
import VigilCore
import VigilFace
import VigilLiveness
import VigilStore

/// A session from start to end: drawing its first plan, deciding and completing it, cancelling,
/// expiring and erasing it, and the retention purge. Every end goes through `end`, so that what
/// a session keeps once over is decided in one place.
struct SessionLifecycle {
    let context: ServerContext

    // MARK: Starting

    /// The engine of a new attempt under `policy`, with a freshly drawn plan: the one place a
    /// plan is drawn.
    static func engine(for policy: LivenessPolicy) -> LivenessEngine {
        var generator = PlanGenerator.random()
        return LivenessEngine(policy: policy, plan: ChallengePlanner.plan(for: policy, using: &generator))
    }

    /// A new session record with its first attempt's engine (not yet stored), and its token.
    func newSession(tenantId: String, policy: LivenessPolicy,
                    fields: (inout SessionRecord) -> Void = { _ in }) -> (record: SessionRecord, token: String) {
        let now = context.clock.now
        let token = Identifiers.sessionToken()
        var record = SessionRecord(id: Identifiers.sessionId(tenantId: tenantId), tenantId: tenantId, tokenHash: Identifiers.hash(token), policy: policy,
                                   createdAt: now, expiresAt: now.addingTimeInterval(context.configuration.sessionLifetime))
        fields(&record)
        record.engineState = EngineState(capture: CaptureAttempt.State(engine: Self.engine(for: record.attemptPolicy)), attempt: 1).bytes
        return (record, token)
    }

    // MARK: Ending

    /// Decides the current attempt now and ends the session with that decision.
    func finish(_ record: SessionRecord) throws(ServiceError) -> SessionRecord {
        try context.live.withEngine(record, context) { (entry) throws(ServiceError) in
            entry.record = try complete(entry.record, try decide(entry), attempt: entry.attempt)
            return entry.record
        }
    }

    /// How often a cancel is tried again on the session as stored, when a report of the page
    /// (its device id, camera or location, sent as it starts) stored the session first.
    static let cancelAttempts = 3

    /// Cancels an open session. A person's cancel is not lost to a report the page sent just
    /// before it: on a concurrent update it cancels the session as stored then.
    func cancel(_ record: SessionRecord) throws(ServiceError) -> SessionRecord {
        var current = record
        for attempt in 1...Self.cancelAttempts {
            guard !current.status.isFinal else { throw Self.finished(current) }
            do {
                return try end(current, as: .cancelled, event: "session.cancelled")
            } catch where error.code == .concurrentUpdate && attempt < Self.cancelAttempts {
                guard let stored = try context.stored({ () throws(StoreError) in try context.store.session(id: record.id, tenantId: record.tenantId) })
                else { throw error }
                current = stored
            }
        }
        throw ServiceError(.concurrentUpdate, "the session changed meanwhile; retry")
    }

    /// Marks an unfinished session past `expiresAt` as expired (once) and returns it as stored.
    func expireIfDue(_ record: SessionRecord) throws(ServiceError) -> SessionRecord {
        let now = context.clock.now
        guard !record.status.isFinal, now >= record.expiresAt else { return record }
        do {
            return try end(record, as: .expired, event: "session.expired", at: now)
        } catch where error.code == .concurrentUpdate {
            // Another request finished or expired it first: use what it stored.
            return try context.stored { () throws(StoreError) in try context.store.session(id: record.id, tenantId: record.tenantId) } ?? record
        }
    }

    /// Erases a session's personal data (`erasingPersonalData`), then rids the database's files
    /// of it (`reclaim`). An open session is cancelled first.
    func erase(_ record: SessionRecord) throws(ServiceError) -> SessionRecord {
        let erased = try erasingPersonalData(record)
        reclaim()
        return erased
    }

    /// How many ended sessions one purge erases.
    static let purgeBatch = 100

    /// The retention purge at `now`: audit images, reference faces, document images and frame
    /// hashes past their deadline, settled webhooks older than the retention period, then the
    /// personal data of sessions that ended longer ago than that (erased as `erase` does, a batch
    /// at a time). How many it removed or erased; the files are rid of them by `reclaim`.
    func purge(now: Date) throws(ServiceError) -> Int {
        let ended = now.addingTimeInterval(-context.configuration.retention)
        var purged = try context.stored { () throws(StoreError) in try context.store.purgePersonalData(now: now, webhooksBefore: ended) }
        let holding = try context.stored { () throws(StoreError) in
            try context.store.sessionsHoldingPersonalData(endedBefore: ended, limit: Self.purgeBatch)
        }
        for record in holding {
            do {
                _ = try erasingPersonalData(record)
                purged += 1
            } catch where error.code == .concurrentUpdate {
                // Erased or changed by another node meanwhile: the next purge sees it as it is.
            }
        }
        return purged
    }

    /// Rids the database's files of what was deleted (`Store.reclaim`). A
    /// failure is logged, not answered: what was erased is gone from every query already, and
    /// the next purge or shutdown reclaims again.
    func reclaim() {
        do {
            if try context.store.reclaim() == false {
                context.logger.log(.warning, "reclaim_partial", ["cause": "the database role may not checkpoint: erased data stays in its log until it is recycled (docs/security.md)"])
            }
        } catch {
            context.logger.log(.error, "reclaim_failed", ["cause": .text("\(error)")])
        }
    }

    /// Erases a session's personal data: the audit image, the reference face, the document image
    /// and what was read of the document but its type and checks, the `ssid`, the location's
    /// coordinates, the device id and the camera label, in the session, in its result
    /// (signed again without them) and in its webhooks not yet delivered; the session is marked
    /// erased. An open session is cancelled first.
    private func erasingPersonalData(_ record: SessionRecord) throws(ServiceError) -> SessionRecord {
        var erased = record
        erased.ssid = nil
        erased.risk = erased.risk?.erasingPersonalData
        erased.document = erased.document?.erasingPersonalData
        if var verdict = erased.verdict {
            verdict.risk = verdict.risk?.erasingPersonalData
            verdict.document = verdict.document?.erasingPersonalData
            let signed = try context.sign(verdict)
            erased.result = signed.json
            erased.signedResult = signed.jws
        }
        let payloads = try erasedWebhookPayloads(erased)
        let cancelling = !record.status.isFinal
        return try end(erased, as: cancelling ? .cancelled : record.status, event: cancelling ? "session.cancelled" : nil,
                       personalData: .erase(webhookPayloads: payloads))
    }

    /// Ends `record` as `status`: its engine is dropped, and it is stored with the webhook of
    /// `event` (when its tenant has one) and `personalData` in one transaction. The one place a
    /// session ends, whether completed, cancelled, erased or expired.
    private func end(_ record: SessionRecord, as status: SessionStatus, event: String?, result: VerdictPayload? = nil,
                     personalData: PersonalDataChange = .keep, frameHash: FrameHash? = nil, at now: Date? = nil) throws(ServiceError) -> SessionRecord {
        let now = now ?? context.clock.now
        var ended = record
        ended.status = status
        ended.engineState = nil
        ended.updatedAt = now
        context.live.remove(record.id)
        return try context.stored { () throws(StoreError) in
            let webhook = try event.flatMap { (name) throws(StoreError) in try context.event(name, for: ended, result: result, at: now) }
            return try context.store.updateSession(ended, enqueue: webhook, personalData: personalData, frameHash: frameHash)
        }
    }

    /// Decides the current attempt: the engine's one decision, on its frames and on the evidence
    /// only the server has (the reference face, the document and frames of other sessions from
    /// the store, arrival times, the camera the page reported).
    func decide(_ entry: LiveSessions.Entry) throws(ServiceError) -> LivenessDecision {
        let id = entry.record.id
        let reference = try context.stored { () throws(StoreError) in try context.store.referenceFace(sessionId: id) }
        let elsewhere = try context.stored { () throws(StoreError) in try context.store.framesSeenElsewhere(sessionId: id) }
        var document: DocumentEvidence?
        if let read = entry.record.document {
            let image = try context.stored { () throws(StoreError) in try context.store.documentImage(sessionId: id) }
            document = DocumentEvidence(valid: read.checks.valid, portrait: try image?.portrait.map { (bytes) throws(ServiceError) in try Self.descriptor(bytes, "portrait") })
        }
        return entry.capture.decide(evidence: SessionEvidence(framesSeenElsewhere: elsewhere, reference: try reference.map { (face) throws(ServiceError) in try Self.descriptor(face.descriptor, "reference") },
                                                              virtualCamera: entry.record.risk?.virtualCamera == true, document: document))
    }

    /// A stored face descriptor (`what`: reference, portrait).
    private static func descriptor(_ bytes: [UInt8], _ what: String) throws(ServiceError) -> FaceDescriptor {
        guard let decoded = FaceDescriptor(bytes: bytes) else {
            throw ServiceError(.internalError, "the session's \(what) face cannot be read", cause: "stored \(what) descriptor does not decode")
        }
        return decoded
    }

    /// Ends the session with `decision` (on attempt `attempt`): the signed result, the stored
    /// state and the `session.completed` webhook in one transaction.
    func complete(_ record: SessionRecord, _ decision: LivenessDecision, attempt: Int,
                          personalData: PersonalDataChange = .keep, frameHash: FrameHash? = nil) throws(ServiceError) -> SessionRecord {
        let checks = decision.checks.mapValues { VerdictPayload.Check(passed: $0.passed, score: $0.score, reason: $0.reason) }
        let rounded = { (match: FaceMatch) in
            VerdictPayload.Match(matched: match.matched, similarity: (match.similarity * 1000).rounded() / 1000,
                                 distance: (match.distance * 1000).rounded() / 1000)
        }
        var document = record.document
        document?.face = decision.documentMatch.map(rounded)
        let now = context.clock.now
        let payload = VerdictPayload(iss: context.baseURL, aud: record.tenantId, sub: record.id, iat: Int(now.timeIntervalSince1970),
                                     jti: Identifiers.id("res_"), externalRef: record.externalRef, outcome: decision.outcome.rawValue,
                                     score: (decision.score * 1000).rounded() / 1000, feedback: decision.feedback, checks: checks,
                                     match: decision.match.map(rounded), risk: record.risk, attempt: attempt,
                                     lockedOut: decision.outcome == .failed && attempt >= record.policy.maxAttempts ? true : nil, document: document)
        let signed = try context.sign(payload)
        var completed = record
        completed.result = signed.json
        completed.signedResult = signed.jws
        completed.outcome = decision.outcome.rawValue
        let stored = try end(completed, as: .completed, event: "session.completed", result: payload, personalData: personalData,
                             frameHash: frameHash, at: now)
        context.metrics.add("vigil_sessions_completed_total{\(Metrics.labels(["outcome": decision.outcome.rawValue]))}")
        for code in decision.feedback { context.metrics.add("vigil_sessions_feedback_total{\(Metrics.labels(["code": code.rawValue]))}") }
        return stored
    }

    /// The payloads of `record`'s webhooks not yet delivered, rewritten with its (erased) result.
    private func erasedWebhookPayloads(_ record: SessionRecord) throws(ServiceError) -> [String: [UInt8]] {
        let pending = try context.stored { () throws(StoreError) in try context.store.webhooks(sessionId: record.id) }.filter { $0.state == .pending }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        var payloads: [String: [UInt8]] = [:]
        for delivery in pending {
            guard var event = try? decoder.decode(WebhookEvent.self, from: Data(delivery.payload)) else { continue }
            if event.result != nil {
                event.result = record.verdict
                event.signedResult = record.signedResult
            }
            payloads[delivery.id] = WebhookEvent.encoded(event)
        }
        return payloads
    }

    /// The refusal of a frame, finish or change on a session that is over.
    static func finished(_ record: SessionRecord) -> ServiceError {
        switch record.status {
        case .expired: ServiceError(.sessionExpired, "the session expired")
        case .completed where record.verdict?.lockedOut == true:
            ServiceError(.sessionLocked, "the session used all its \(record.policy.maxAttempts) attempts")
        default: ServiceError(.sessionFinished, "the session is \(record.status.rawValue)")
        }
    }
}
