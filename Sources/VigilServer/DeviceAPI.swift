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

    static func register(_ router: inout Router, _ context: ServerContext) {
        router.add("GET", "/v1/client/session") { try status($0, context) }
        router.add("POST", "/v1/client/frames", bodyLimit: maxFrameBytes) { try frame($0, context) }
        router.add("POST", "/v1/client/finish") { try finish($0, context) }
        router.add("POST", "/v1/client/cancel") { try cancel($0, context) }
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

        /// The same JSON as `JSONEncoder` with sorted keys, written directly: apps poll this
        /// often, and every value here comes from a fixed alphabet (enum names, base64url and
        /// dots), so nothing needs escaping.
        var jsonBytes: [UInt8] {
            var fields: [String] = []
            if let feedback { fields.append("\"feedback\":[" + feedback.map { "\"\($0.rawValue)\"" }.joined(separator: ",") + "]") }
            if let outcome { fields.append("\"outcome\":\"\(outcome)\"") }
            if let signedResult { fields.append("\"signedResult\":\"\(signedResult)\"") }
            fields.append("\"status\":\"\(status.rawValue)\"")
            return Array(("{" + fields.joined(separator: ",") + "}").utf8)
        }
    }

    static func status(_ request: HTTPRequest, _ context: ServerContext) throws -> HTTPResponse {
        HTTPResponse(status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                     body: statusView(try context.deviceSession(request)).jsonBytes)
    }

    static func statusView(_ record: SessionRecord) -> StatusView {
        let result = record.verdict
        return StatusView(status: record.status, outcome: result?.outcome, feedback: result?.feedback,
                          signedResult: record.signedResult)
    }

    /// The session's engine in memory, made from the stored plan when there is none.
    static func engine(_ record: SessionRecord, _ context: ServerContext) throws(HTTPError) -> LiveSessions.Entry {
        guard let snapshot = EngineSnapshot(record.engineState) else { throw HTTPError(409, "session_finished", "the session has no engine state") }
        return context.live.entry(record.id) {
            context.analyzers.with { LivenessRunner(session: LivenessSession(policy: record.policy, plan: snapshot.plan), analyzer: $0) }
        }
    }

    /// What a frame answers: live guidance and challenge state.
    struct FrameAnswer: Encodable {
        struct Reflection: Encodable { let colors: [ReflectionColor], startMs: Int, stepMs: Int }
        let status: SessionStatus
        let face: Bool
        let guidance: FeedbackCode?
        let challenge: ChallengeView?
        let reflection: Reflection?
        let outcome: String?
        let signedResult: String?
    }

    static func frame(_ request: HTTPRequest, _ context: ServerContext) throws -> HTTPResponse {
        var record = try context.deviceSession(request)
        guard !record.status.isFinal else { throw finished(record) }
        guard request.header("content-type")?.lowercased().hasPrefix("image/jpeg") == true else {
            throw HTTPError(415, "unsupported_media_type", "a frame is one JPEG with 'Content-Type: image/jpeg'")
        }
        guard let text = request.header("vigil-capture-time"), let captureMs = Int(text), (0...3_600_000).contains(captureMs) else {
            throw HTTPError(400, "invalid_capture_time", "'Vigil-Capture-Time' must be the capture time in ms since capture start (0-3600000)")
        }
        guard request.body.count >= 4, request.body[0] == 0xFF, request.body[1] == 0xD8, request.body[2] == 0xFF else {
            throw HTTPError(422, "invalid_image", "the body is not a JPEG")
        }
        let image: Image
        do {
            image = try Image(encoded: request.body, maxPixels: 1920 * 1080)
        } catch {
            throw HTTPError(422, "invalid_image", "the JPEG cannot be decoded: \(error.description)")
        }
        let entry = try engine(record, context)
        entry.lock.lock()
        defer { entry.lock.unlock() }
        guard entry.runner.session.frameCount < maxFrames else {
            throw HTTPError(429, "too_many_frames", "a session takes at most \(maxFrames) frames")
        }
        let update = context.analyzers.with { analyzer in
            entry.runner.analyzer = analyzer
            return entry.runner.process(image, timestampMs: captureMs, contentHash: contentHash(request.body))
        }
        context.metrics.add("vigil_frames_total")
        var reflection: FrameAnswer.Reflection?
        if entry.runner.session.reflectionDue {
            // The page shows the sequence from this capture time on its own clock.
            entry.runner.startReflection(atMs: captureMs + 300)
        }
        if let start = entry.runner.session.reflectionStartMs, let sequence = entry.runner.session.plan.reflection {
            reflection = .init(colors: sequence.colors, startMs: start, stepMs: sequence.stepMs)
        }
        if entry.runner.session.finished {
            record = try Completion.complete(record, decision: entry.runner.decide(), context)
        } else if record.status == .created {
            record.status = .capturing
            record.updatedAt = Date()
            record = (try? context.store.updateSession(record, enqueue: nil)) ?? record
        }
        let tracker = entry.runner.session.tracker
        let challenge = update.challengeIndex.map { i in
            ChallengeView(index: i, total: tracker.challenges.count, kind: tracker.challenges[i].kind, progress: update.progress,
                          state: tracker.challenges[i].state)
        }
        let result = record.verdict
        let face = entry.runner.lastObservation?.frame.faces.isEmpty == false
        return .json(FrameAnswer(status: record.status, face: face, guidance: update.guidance, challenge: challenge, reflection: reflection,
                                 outcome: result?.outcome, signedResult: record.signedResult), headers: [("Cache-Control", "no-store")])
    }

    static func finish(_ request: HTTPRequest, _ context: ServerContext) throws -> HTTPResponse {
        let record = try context.deviceSession(request)
        guard !record.status.isFinal else { throw finished(record) }
        let entry = try engine(record, context)
        entry.lock.lock()
        let decision = entry.runner.decide()
        entry.lock.unlock()
        return .json(statusView(try Completion.complete(record, decision: decision, context)))
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
        case .expired: HTTPError(410, "session_expired", "the session expired")
        default: HTTPError(409, "session_finished", "the session is \(record.status.rawValue)")
        }
    }
}
