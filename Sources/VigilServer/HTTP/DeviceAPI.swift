import Foundation
import VigilCore
import VigilFace
import VigilHTTP
import VigilLiveness
import VigilStore

/// The device API, authorised by the session token: status polling, frames, finish, cancel.
enum DeviceAPI {
    /// The largest frame accepted (a 640x480 JPEG is 30-80 KB).
    static let maxFrameBytes = 2 * 1024 * 1024
    /// Frames accepted per session.
    static let maxFrames = 3000
    /// How long after the frame that finished the motions the reflection colours start.
    static let reflectionNoticeMs = 1000

    static func register(_ router: inout Router, _ context: ServerContext) {
        router.add("GET", "/v1/client/session") { try status($0, context) }
        router.add("POST", "/v1/client/frames", bodyLimit: maxFrameBytes) { try frame($0, context) }
        router.add("POST", "/v1/client/finish") { try finish($0, context) }
        router.add("POST", "/v1/client/cancel") { try cancel($0, context) }
        router.add("POST", "/v1/client/location", bodyLimit: 1024) { try location($0, context) }
        router.add("POST", "/v1/client/device", bodyLimit: 1024) { try deviceId($0, context) }
        router.add("POST", "/v1/client/camera", bodyLimit: 1024) { try camera($0, context) }
        router.add("POST", "/v1/client/decline-reflection") { try declineReflection($0, context) }
    }

    /// The current challenge as the page shows it.
    struct ChallengeView: Encodable {
        let index: Int, total: Int, kind: Motion, progress: Double, state: ChallengeState
    }

    /// What a poll answers.
    struct StatusView: Encodable {
        let status: SessionStatus
        let outcome: String?
        let feedback: [FeedbackCode]?
        let signedResult: String?
        let lockedOut: Bool?
        /// The page's language (a BCP 47 tag, checked at creation).
        let locale: String?
        /// Where the page goes when done.
        let redirectUrl: String?
        /// Whether the page should ask for the device's location (and has not reported it).
        let collectLocation: Bool?
        /// Whether the person may decline the flashes and go on with motions only (not yet done).
        let motionOnlyAvailable: Bool?

        /// The same JSON as `JSONEncoder` with sorted keys, written directly: apps poll this
        /// often, and every value but the redirect URL comes from a fixed alphabet (enum names,
        /// base64url and dots, a locale checked at creation), so only that one is escaped.
        var jsonBytes: [UInt8] {
            var fields: [String] = []
            if let collectLocation { fields.append("\"collectLocation\":\(collectLocation)") }
            if let feedback { fields.append("\"feedback\":[" + feedback.map { "\"\($0.rawValue)\"" }.joined(separator: ",") + "]") }
            if let locale { fields.append("\"locale\":\"\(locale)\"") }
            if let lockedOut { fields.append("\"lockedOut\":\(lockedOut)") }
            if let motionOnlyAvailable { fields.append("\"motionOnlyAvailable\":\(motionOnlyAvailable)") }
            if let outcome { fields.append("\"outcome\":\"\(outcome)\"") }
            if let redirectUrl { fields.append("\"redirectUrl\":\"\(VigilJSON.escaped(redirectUrl))\"") }
            if let signedResult { fields.append("\"signedResult\":\"\(signedResult)\"") }
            fields.append("\"status\":\"\(status.rawValue)\"")
            return Array(("{" + fields.joined(separator: ",") + "}").utf8)
        }
    }

    /// Polls read the session's head and answer from `StatusCache` while its version holds.
    static func status(_ request: HTTPRequest, _ context: ServerContext) throws -> HTTPResponse {
        let head = try context.deviceHead(request)
        let body: [UInt8]
        if head.status.isFinal || Date() < head.expiresAt, let cached = context.statusAnswers.answer(head.id, version: head.version) {
            body = cached
        } else {
            let read = try context.stored { () throws(StoreError) in try context.store.session(id: head.id, tenantId: head.tenantId) }
            guard let read else { throw HTTPError(.invalidToken, "the session token is not valid") }
            let record = try context.expireIfDue(read)
            body = statusView(record).jsonBytes
            context.statusAnswers.store(body, for: record.id, version: record.version)
        }
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")], body: body)
    }

    static func statusView(_ record: SessionRecord) -> StatusView {
        let result = record.verdict
        return StatusView(status: record.status, outcome: result?.outcome, feedback: result?.feedback,
                          signedResult: record.signedResult, lockedOut: result?.lockedOut, locale: record.locale,
                          redirectUrl: record.redirectUrl,
                          collectLocation: record.status.isFinal || record.risk?.location?.status != .missing ? nil : true,
                          motionOnlyAvailable: record.status.isFinal || record.risk?.reflectionDeclined == true || record.policy.motionOnly() == nil ? nil : true)
    }

    /// Runs `body` on the session's engine, its lock held, after bringing the entry up to date:
    /// an entry older than `record` (another process went on with the session) is rebuilt from
    /// the stored state, and a session that ended meanwhile is refused.
    static func withEngine<T>(_ record: SessionRecord, _ context: ServerContext, _ body: (LiveSessions.Entry) throws -> T) throws -> T {
        let make = { (record: SessionRecord) throws(EngineState.Error) -> LiveSessions.Entry in
            let state = try EngineState(record.engineState)
            let runner = context.analyzers.with { LivenessRunner(state: state.runner, analyzer: $0) }
            return LiveSessions.Entry(record: record, runner: runner, attempt: state.attempt, clock: state.clock ?? CaptureClockCheck())
        }
        do {
            let entry = try context.live.entry(record, make: make)
            entry.lock.lock()
            defer { entry.lock.unlock() }
            if record.version > entry.record.version {
                let reloaded = try make(record)
                entry.runner = reloaded.runner
                entry.attempt = reloaded.attempt
                entry.clock = reloaded.clock
                entry.record = record
            }
            guard !entry.record.status.isFinal else { throw finished(entry.record) }
            return try body(entry)
        } catch let error as EngineState.Error {
            context.live.remove(record.id)
            throw error == .missing ? HTTPError(.sessionFinished, "the session has no engine state")
                : HTTPError(.engineStateCorrupt, "the session's stored engine state cannot be read")
        }
    }

    /// Stores the entry's record, on a conflict (the session was cancelled, erased or expired
    /// meanwhile) dropping the entry and answering with the session's state as stored.
    static func save(_ entry: LiveSessions.Entry, _ record: SessionRecord, personalData: PersonalDataChange, _ context: ServerContext) throws(HTTPError) {
        do {
            entry.record = try context.store.updateSession(record, enqueue: nil, personalData: personalData)
        } catch .staleVersion {
            context.live.remove(record.id)
            let current = try context.stored { () throws(StoreError) in try context.store.session(id: record.id, tenantId: record.tenantId) }
            if let current, current.status.isFinal { throw finished(current) }
            throw HTTPError(.concurrentUpdate, "the session changed meanwhile; retry")
        } catch {
            throw HTTPError(.storageUnavailable, "the database could not complete the request")
        }
    }

    /// What a frame answers: live guidance and challenge state.
    struct FrameAnswer: Encodable {
        struct Reflection: Encodable { let colors: [ReflectionColor], startMs: Int, stepMs: Int }
        /// The attempt that just failed, when this frame ended one and another may start.
        struct Retry: Encodable { let feedback: [FeedbackCode], attemptsLeft: Int }
        let status: SessionStatus
        let attempt: Int, maxAttempts: Int
        let retry: Retry?
        let face: Bool
        let guidance: FeedbackCode?
        let challenge: ChallengeView?
        let reflection: Reflection?
        let outcome: String?
        let feedback: [FeedbackCode]?
        let lockedOut: Bool?
        let signedResult: String?
    }

    static func frame(_ request: HTTPRequest, _ context: ServerContext) throws -> HTTPResponse {
        let record = try context.deviceSession(request)
        guard !record.status.isFinal else { throw finished(record) }
        guard request.header("content-type")?.lowercased().hasPrefix("image/jpeg") == true else {
            throw HTTPError(.unsupportedMediaType, "a frame is one JPEG with 'Content-Type: image/jpeg'")
        }
        guard let text = request.header("vigil-capture-time"), let captureMs = Int(text), (0...3_600_000).contains(captureMs) else {
            throw HTTPError(.invalidCaptureTime, "'Vigil-Capture-Time' must be the capture time in ms since capture start (0-3600000)")
        }
        guard request.body.count >= 4, request.body[0] == 0xFF, request.body[1] == 0xD8, request.body[2] == 0xFF else {
            throw HTTPError(.invalidImage, "the body is not a JPEG")
        }
        let image: Image
        do {
            image = try Image(encoded: request.body, maxPixels: 1920 * 1080)
        } catch {
            throw HTTPError(.invalidImage, "the JPEG cannot be decoded: \(error.description)")
        }
        return try withEngine(record, context) { entry in
            guard entry.runner.session.frameCount < maxFrames else {
                throw HTTPError(.tooManyFrames, "a session takes at most \(maxFrames) frames")
            }
            let hash = contentHash(request.body)
            let update = context.analyzers.with { analyzer in
                entry.runner.analyzer = analyzer
                return entry.runner.process(image, timestampMs: captureMs, contentHash: hash)
            }
            if context.configuration.checkCaptureClock { entry.clock.observe(captureMs: captureMs) }
            let retainedUntil = Date().addingTimeInterval(context.configuration.retention)
            try context.stored { () throws(StoreError) in try context.store.insertFrameHash(hash, sessionId: record.id, deleteAfter: retainedUntil) }
            context.metrics.add("vigil_frames_total")
            if entry.runner.session.reflectionDue {
                // The page shows the sequence from this capture time on its own clock, after
                // announcing it for about a second (flashes are announced before they start).
                entry.runner.startReflection(atMs: captureMs + reflectionNoticeMs)
            }
            // The best frame so far is kept as uploaded, as the audit image.
            let personalData: PersonalDataChange = entry.runner.session.bestFrame?.timestampMs == captureMs
                ? .storeAuditImage(AuditImage(jpeg: request.body, deleteAfter: retainedUntil)) : .keep
            var retry: FrameAnswer.Retry?
            if entry.runner.session.finished {
                let decision = try Completion.decide(entry.record, runner: entry.runner, clock: entry.clock, context)
                if decision.outcome == .failed, entry.attempt < entry.record.policy.maxAttempts {
                    // Another attempt with a new plan; the tenant only ever sees the last one.
                    entry.attempt += 1
                    retry = .init(feedback: decision.feedback, attemptsLeft: entry.record.policy.maxAttempts - entry.attempt + 1)
                    entry.restart(newEngine(entry.record.attemptPolicy))
                    context.metrics.add("vigil_attempts_failed_total")
                } else {
                    entry.record = try Completion.complete(entry.record, decision, attempt: entry.attempt, personalData: personalData, context)
                }
            }
            if !entry.record.status.isFinal {
                var next = entry.record
                next.status = .capturing
                next.engineState = entry.state.bytes
                next.updatedAt = Date()
                try save(entry, next, personalData: personalData, context)
            }
            return .json(answer(entry, retry == nil ? update : nil, retry: retry), headers: [("Cache-Control", "no-store")])
        }
    }

    /// A fresh engine for `policy` with a newly drawn plan.
    static func newEngine(_ policy: LivenessPolicy) -> LivenessSession {
        var generator = PlanGenerator.random()
        return LivenessSession(policy: policy, plan: ChallengePlanner.plan(for: policy, using: &generator))
    }

    /// The frame answer from the engine after a frame (`update` is nil when a new attempt began).
    static func answer(_ entry: LiveSessions.Entry, _ update: TrackerUpdate?, retry: FrameAnswer.Retry?) -> FrameAnswer {
        let session = entry.runner.session
        let challenge = update?.challengeIndex.map { i in
            ChallengeView(index: i, total: session.tracker.challenges.count, kind: session.tracker.challenges[i].kind, progress: update?.progress ?? 0,
                          state: session.tracker.challenges[i].state)
        }
        var reflection: FrameAnswer.Reflection?
        if let start = session.reflectionStartMs, let sequence = session.plan.reflection {
            reflection = .init(colors: sequence.colors, startMs: start, stepMs: sequence.stepMs)
        }
        let face = entry.runner.lastObservation?.frame.faces.isEmpty == false
        let verdict = entry.record.verdict
        return FrameAnswer(status: entry.record.status, attempt: entry.attempt, maxAttempts: entry.record.policy.maxAttempts, retry: retry,
                           face: face, guidance: update?.guidance, challenge: challenge, reflection: reflection, outcome: verdict?.outcome,
                           feedback: verdict?.feedback, lockedOut: verdict?.lockedOut, signedResult: entry.record.signedResult)
    }

    static func finish(_ request: HTTPRequest, _ context: ServerContext) throws -> HTTPResponse {
        let record = try context.deviceSession(request)
        guard !record.status.isFinal else { throw finished(record) }
        return try withEngine(record, context) { entry in
            let decision = try Completion.decide(entry.record, runner: entry.runner, clock: entry.clock, context)
            entry.record = try Completion.complete(entry.record, decision, attempt: entry.attempt, context)
            return .json(statusView(entry.record))
        }
    }

    static func cancel(_ request: HTTPRequest, _ context: ServerContext) throws -> HTTPResponse {
        var record = try context.deviceSession(request)
        guard !record.status.isFinal else { throw finished(record) }
        context.live.remove(record.id)
        record.status = .cancelled
        record.engineState = nil
        record.updatedAt = Date()
        let stored = try context.stored { () throws(StoreError) in
            try context.store.updateSession(record, enqueue: try context.event("session.cancelled", for: record))
        }
        return .json(statusView(stored))
    }

    /// The answer for a frame, finish or cancel on a session that is over.
    static func finished(_ record: SessionRecord) -> HTTPError {
        switch record.status {
        case .expired: HTTPError(.sessionExpired, "the session expired")
        case .completed where record.verdict?.lockedOut == true:
            HTTPError(.sessionLocked, "the session used all its \(record.policy.maxAttempts) attempts")
        default: HTTPError(.sessionFinished, "the session is \(record.status.rawValue)")
        }
    }
}
