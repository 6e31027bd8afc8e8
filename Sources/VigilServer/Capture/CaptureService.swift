import Foundation
import VigilCore
import VigilFace
import VigilLiveness
import VigilStore

/// The capture flow under the HTTP layer, with one place for each step: starting a session or
/// an attempt (drawing its plan), processing a frame, changing an open session, finishing, and
/// ending a session with its status, event and webhook. Handlers parse, call one of these, and
/// render; every refusal is a `ServiceError`.
struct CaptureService {
    /// Frames accepted per session.
    static let maxFrames = 3000

    let context: ServerContext

    // MARK: Starting

    /// The engine of a new attempt under `policy`, with a freshly drawn plan: the one place a
    /// plan is drawn.
    static func engine(for policy: LivenessPolicy) -> LivenessSession {
        var generator = PlanGenerator.random()
        return LivenessSession(policy: policy, plan: ChallengePlanner.plan(for: policy, using: &generator))
    }

    /// A new session record with its first attempt's engine (not yet stored), and its token.
    func newSession(tenantId: String, policy: LivenessPolicy,
                    fields: (inout SessionRecord) -> Void = { _ in }) -> (record: SessionRecord, token: String) {
        let now = context.clock.now
        let token = Identifiers.sessionToken()
        var record = SessionRecord(id: Identifiers.sessionId(tenantId: tenantId), tenantId: tenantId, tokenHash: Identifiers.hash(token), policy: policy,
                                   createdAt: now, expiresAt: now.addingTimeInterval(context.configuration.sessionLifetime))
        fields(&record)
        record.engineState = EngineState(runner: LivenessRunner.State(session: Self.engine(for: record.attemptPolicy)), attempt: 1).bytes
        return (record, token)
    }

    // MARK: Frames

    /// What a frame did to the session.
    struct FrameProgress {
        /// The attempt that just failed, when this frame ended one and another began.
        struct Retry: Encodable { let feedback: [FeedbackCode], attemptsLeft: Int }
        /// The session as stored after the frame.
        let record: SessionRecord
        /// The attempt now running, and its engine.
        let attempt: Int, engine: LivenessSession
        /// The engine's answer to the frame (nil when a new attempt began).
        let update: TrackerUpdate?
        let retry: Retry?
        /// Whether the frame held a face.
        let face: Bool
    }

    /// Runs one decoded frame (`jpeg` as uploaded, captured at `captureMs` on the page's clock)
    /// through the session's engine; decides, retries or completes when the attempt is over.
    func frame(_ record: SessionRecord, image: Image, jpeg: [UInt8], captureMs: Int) throws(ServiceError) -> FrameProgress {
        try withEngine(record) { (entry) throws(ServiceError) in
            if entry.record.policy.document?.required == true, entry.record.document == nil {
                throw ServiceError(.documentRequired, "this session's policy asks for the identity document before the face")
            }
            guard entry.capture.session.frameCount < Self.maxFrames else {
                throw ServiceError(.tooManyFrames, "a session takes at most \(Self.maxFrames) frames")
            }
            let hash = contentHash(jpeg)
            // The attempt has a capture clock only when the server checks it.
            let update = try context.analyzers().withAnalyzer { analyzer in
                let analysing = ContinuousClock.now
                defer { context.metrics.observe("vigil_frame_analysis_ms", milliseconds: (ContinuousClock.now - analysing).milliseconds) }
                return entry.capture.process(image, captureMs: captureMs, arrival: context.clock.now, contentHash: hash, with: analyzer)
            }
            let retainedUntil = context.clock.now.addingTimeInterval(context.configuration.retention)
            // Stored with the session's update, one write a frame (the frame that ends the session
            // is not among the "seen elsewhere" its own decision counts).
            let frameHash = FrameHash(hash, deleteAfter: retainedUntil)
            context.metrics.add("vigil_frames_total")
            // The best frame so far is kept as uploaded, as the audit image.
            let personalData: PersonalDataChange = entry.capture.session.bestFrame?.timestampMs == captureMs
                ? .storeAuditImage(AuditImage(jpeg: jpeg, deleteAfter: retainedUntil)) : .keep
            var retry: FrameProgress.Retry?
            if entry.capture.session.finished {
                let decision = try decide(entry)
                if decision.outcome == .failed, entry.attempt < entry.record.policy.maxAttempts {
                    // Another attempt with a new plan; the tenant only ever sees the last one.
                    entry.attempt += 1
                    retry = .init(feedback: decision.feedback, attemptsLeft: entry.record.policy.maxAttempts - entry.attempt + 1)
                    entry.restart(Self.engine(for: entry.record.attemptPolicy))
                    context.metrics.add("vigil_attempts_failed_total")
                    // The tenant sees only the last attempt; the log keeps why the others failed.
                    context.logger.log(.info, "attempt_failed", [
                        "sessionId": .text(record.id), "tenantId": .text(record.tenantId), "attempt": .integer(entry.attempt - 1),
                        "feedback": .text(decision.feedback.map(\.rawValue).joined(separator: ",")),
                        "reasons": .text(decision.reasons.joined(separator: ",")),
                    ])
                } else {
                    entry.record = try complete(entry.record, decision, attempt: entry.attempt, personalData: personalData, frameHash: frameHash)
                }
            }
            if !entry.record.status.isFinal {
                var next = entry.record
                next.status = .capturing
                try save(entry, next, personalData: personalData, frameHash: frameHash)
            }
            return FrameProgress(record: entry.record, attempt: entry.attempt, engine: entry.capture.session, update: retry == nil ? update : nil,
                                 retry: retry, face: entry.capture.runner.lastObservation?.frame.faces.isEmpty == false)
        }
    }

    // MARK: Changing an open session

    /// Changes an open session under its engine's lock (a report from the page, declining the
    /// flashes) and stores it with the engine as `change` left it.
    func change<T>(_ record: SessionRecord, personalData: PersonalDataChange = .keep,
                   _ change: (inout SessionRecord, LiveSessions.Entry) throws(ServiceError) -> T) throws(ServiceError) -> T {
        try withEngine(record) { (entry) throws(ServiceError) in
            var next = entry.record
            let value = try change(&next, entry)
            try save(entry, next, personalData: personalData)
            return value
        }
    }

    /// Takes `document` as the session's document, read from `image` (stored as personal data).
    func captureDocument(_ record: SessionRecord, _ document: DocumentResult, image: DocumentImage) throws(ServiceError) {
        try change(record, personalData: .storeDocumentImage(image)) { (next, _) throws(ServiceError) in
            guard next.document == nil else { throw ServiceError(.documentAlreadyCaptured, "the session's document was captured already") }
            next.document = document
            context.metrics.add("vigil_documents_captured_total")
        }
    }

    /// The most photos a session's document step reads, whether they read or not: about two
    /// minutes at the capture page's pace of one a second, plenty for a person, and a bound on
    /// what one session token can make the node read.
    static let maxDocumentPhotos = 120

    /// Counts a photo of the document step before it is read. The one past `maxDocumentPhotos`
    /// is not read: it fails the session, locked out, and answers true.
    func countDocumentPhoto(_ record: SessionRecord) throws(ServiceError) -> Bool {
        try withEngine(record) { (entry) throws(ServiceError) in
            entry.documentPhotos += 1
            guard entry.documentPhotos > Self.maxDocumentPhotos else {
                try save(entry, entry.record, personalData: .keep)
                return false
            }
            let exhausted = CheckResult(passed: false, score: 0, feedback: .documentIssue, reason: "document_photos_exhausted")
            let decision = LivenessDecision.decide(challenges: entry.capture.session.tracker.challenges, checks: ["document": exhausted],
                                                   guidance: [:], frames: 0)
            entry.record = try complete(entry.record, decision, attempt: entry.record.policy.maxAttempts)
            return true
        }
    }

    /// Counts a document the step refused for what it is (a type the policy does not accept, or
    /// expired), each different document once. `maxAttempts` bounds the document step too: the
    /// refusal of that many different documents fails the session, locked out; true then. The
    /// same document shown again is not counted: the person is told why, and may go on until
    /// the session expires.
    func refuseDocument(_ record: SessionRecord, _ document: DocumentResult) throws(ServiceError) -> Bool {
        try withEngine(record) { (entry) throws(ServiceError) in
            let number = [document.documentCode, document.issuingState, document.documentNumber].map { $0 ?? "" }.joined(separator: "<")
            let fingerprint = String(Identifiers.hash("\(record.id)|\(number)").prefix(6))
            guard !entry.refusedDocuments.contains(fingerprint) else { return false }
            entry.refusedDocuments.append(fingerprint)
            context.metrics.add("vigil_documents_refused_total")
            let maxAttempts = entry.record.policy.maxAttempts
            if entry.refusedDocuments.count >= maxAttempts {
                let refused = CheckResult(passed: false, score: 0, feedback: .documentIssue, reason: "documents_refused")
                let decision = LivenessDecision.decide(challenges: entry.capture.session.tracker.challenges, checks: ["document": refused],
                                                       guidance: [:], frames: 0)
                entry.record = try complete(entry.record, decision, attempt: maxAttempts)
                return true
            }
            try save(entry, entry.record, personalData: .keep)
            return false
        }
    }

    /// Restarts the current attempt with the policy's motion-only plan (the person declined the
    /// flashes); later attempts keep it.
    func declineReflection(_ record: SessionRecord) throws(ServiceError) -> (attempt: Int, challenges: Int) {
        guard let fallback = record.policy.motionOnly() else {
            throw ServiceError(.motionOnlyNotAllowed, "this session's policy has no motion-only alternative")
        }
        return try change(record) { (next, entry) throws(ServiceError) in
            guard next.risk?.reflectionDeclined != true else {
                throw ServiceError(.reflectionAlreadyDeclined, "the flashes were declined already")
            }
            guard entry.capture.session.reflectionStartMs == nil else {
                throw ServiceError(.reflectionStarted, "the flashes already started in this attempt")
            }
            next.risk = next.risk ?? SessionRisk()
            next.risk?.reflectionDeclined = true
            entry.restart(Self.engine(for: fallback))
            context.metrics.add("vigil_reflection_declined_total")
            return (entry.attempt, fallback.count)
        }
    }

    // MARK: Finishing and ending

    /// Decides the current attempt now and ends the session with that decision.
    func finish(_ record: SessionRecord) throws(ServiceError) -> SessionRecord {
        try withEngine(record) { (entry) throws(ServiceError) in
            entry.record = try complete(entry.record, try decide(entry), attempt: entry.attempt)
            return entry.record
        }
    }

    /// Cancels an open session.
    func cancel(_ record: SessionRecord) throws(ServiceError) -> SessionRecord {
        guard !record.status.isFinal else { throw Self.finished(record) }
        return try end(record, as: .cancelled, event: "session.cancelled")
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

    /// Erases a session's personal data: the audit image, the reference face, the document image
    /// and what was read of the document but its type and checks, the `ssid`, the location's
    /// coordinates, the device id and the camera label, in the session, in its result
    /// (signed again without them) and in its webhooks not yet delivered. An open session is
    /// cancelled first.
    func erase(_ record: SessionRecord) throws(ServiceError) -> SessionRecord {
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
    private func decide(_ entry: LiveSessions.Entry) throws(ServiceError) -> LivenessDecision {
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
    private func complete(_ record: SessionRecord, _ decision: LivenessDecision, attempt: Int,
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

    // MARK: The engine cache

    /// Runs `body` on the session's engine, its lock held, after bringing the entry up to date:
    /// an entry older than `record` (another process went on with the session) is rebuilt from
    /// the stored state, and a session that ended meanwhile is refused.
    private func withEngine<T>(_ record: SessionRecord, _ body: (LiveSessions.Entry) throws(ServiceError) -> T) throws(ServiceError) -> T {
        let make = { (record: SessionRecord) throws(EngineState.Error) -> LiveSessions.Entry in
            let state = try EngineState(record.engineState)
            let clock = context.configuration.checkCaptureClock ? state.clock ?? CaptureClockCheck() : nil
            return LiveSessions.Entry(record: record, capture: CaptureAttempt(runner: state.runner, clock: clock), attempt: state.attempt,
                                      refusedDocuments: state.refusedDocuments ?? [], documentPhotos: state.documentPhotos ?? 0)
        }
        let entry: LiveSessions.Entry
        do {
            entry = try context.live.entry(record, make: make)
        } catch {
            throw unreadable(record, error)
        }
        entry.lock.lock()
        defer { entry.lock.unlock() }
        if record.version > entry.record.version {
            do {
                let reloaded = try make(record)
                entry.capture = reloaded.capture
                entry.attempt = reloaded.attempt
                entry.refusedDocuments = reloaded.refusedDocuments
                entry.documentPhotos = reloaded.documentPhotos
                entry.record = record
            } catch {
                throw unreadable(record, error)
            }
        }
        guard !entry.record.status.isFinal else { throw Self.finished(entry.record) }
        return try body(entry)
    }

    private func unreadable(_ record: SessionRecord, _ error: EngineState.Error) -> ServiceError {
        context.live.remove(record.id)
        return error == .missing ? ServiceError(.sessionFinished, "the session has no engine state")
            : ServiceError(.engineStateCorrupt, "the session's stored engine state cannot be read")
    }

    /// Stores `record` with the entry's engine state, on a conflict (the session was cancelled,
    /// erased or expired meanwhile) dropping the entry and answering with the session's state as stored.
    private func save(_ entry: LiveSessions.Entry, _ record: SessionRecord, personalData: PersonalDataChange,
                      frameHash: FrameHash? = nil) throws(ServiceError) {
        var record = record
        record.engineState = entry.state.bytes
        record.updatedAt = context.clock.now
        do {
            entry.record = try context.store.updateSession(record, enqueue: nil, personalData: personalData, frameHash: frameHash)
        } catch .staleVersion {
            context.live.remove(record.id)
            let current = try context.stored { () throws(StoreError) in try context.store.session(id: record.id, tenantId: record.tenantId) }
            if let current, current.status.isFinal { throw Self.finished(current) }
            throw ServiceError(.concurrentUpdate, "the session changed meanwhile; retry")
        } catch {
            throw ServiceError(.storageUnavailable, "the database could not complete the request", cause: "\(error)")
        }
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
