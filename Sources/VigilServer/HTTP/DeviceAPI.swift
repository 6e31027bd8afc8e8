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

    static func register(_ router: inout Router, _ context: ServerContext) {
        router.add("GET", "/v1/client/session") { try status($0, context) }
        router.add("POST", "/v1/client/frames", bodyLimit: maxFrameBytes, lane: .workers, admit: { try context.admitFrame($0) }) { try frame($0, context) }
        router.add("POST", "/v1/client/finish") { try finish($0, context) }
        router.add("POST", "/v1/client/cancel") { try cancel($0, context) }
        router.add("POST", "/v1/client/location", bodyLimit: 1024) { try location($0, context) }
        router.add("POST", "/v1/client/device", bodyLimit: 1024) { try deviceId($0, context) }
        router.add("POST", "/v1/client/camera", bodyLimit: 1024) { try camera($0, context) }
        router.add("POST", "/v1/client/decline-reflection") { try declineReflection($0, context) }
        router.add("POST", "/v1/client/document", bodyLimit: maxDocumentBytes, lane: .background, admit: { try context.admitDocument($0, apiKey: false) }) {
            try document($0, context)
        }
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
        /// The document step, while the session is open and has one.
        let document: DocumentStep?

        /// The document step as the page shows it.
        struct DocumentStep: Encodable {
            /// Whether the document was captured.
            let captured: Bool
            /// Whether liveness waits for it.
            let required: Bool
            /// Whether the live face is compared with its portrait.
            let matchFace: Bool
            /// The formats accepted.
            let types: [DocumentType]
        }

        /// The same JSON as `JSONEncoder` with sorted keys, written directly: apps poll this
        /// often, and every value but the redirect URL comes from a fixed alphabet (enum names,
        /// base64url and dots, a locale checked at creation), so only that one is escaped.
        var jsonBytes: [UInt8] {
            var fields: [String] = []
            if let collectLocation { fields.append("\"collectLocation\":\(collectLocation)") }
            if let document {
                let types = document.types.map { "\"\($0.rawValue)\"" }.joined(separator: ",")
                fields.append("\"document\":{\"captured\":\(document.captured),\"matchFace\":\(document.matchFace),\"required\":\(document.required),"
                              + "\"types\":[\(types)]}")
            }
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
        if head.status.isFinal || context.clock.now < head.expiresAt, let cached = context.statusAnswers.answer(head.id, version: head.version) {
            body = cached
        } else {
            let read = try context.stored { () throws(StoreError) in try context.store.session(id: head.id, tenantId: head.tenantId) }
            guard let read else { throw HTTPError(.invalidToken, "the session token is not valid") }
            let record = try context.lifecycle.expireIfDue(read)
            body = try statusView(record, context).jsonBytes
            context.statusAnswers.store(body, for: record.id, version: record.version)
        }
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")], body: body)
    }

    static func statusView(_ record: SessionRecord, _ context: ServerContext) throws(ServiceError) -> StatusView {
        let result = record.verdict
        return StatusView(status: record.status, outcome: result?.outcome, feedback: result?.feedback,
                          signedResult: try context.deviceSignedResult(result), lockedOut: result?.lockedOut, locale: record.locale,
                          redirectUrl: record.redirectUrl,
                          collectLocation: record.status.isFinal || record.risk?.location?.status != .missing ? nil : true,
                          motionOnlyAvailable: record.status.isFinal || record.risk?.reflectionDeclined == true || record.policy.motionOnly() == nil ? nil : true,
                          document: record.status.isFinal ? nil : record.policy.document.map {
                              StatusView.DocumentStep(captured: record.document != nil, required: $0.required, matchFace: $0.matchFace, types: $0.types)
                          })
    }

    /// What a frame answers: live guidance and challenge state.
    struct FrameAnswer: Encodable {
        struct Reflection: Encodable { let colors: [ReflectionColor], startMs: Int, stepMs: Int }
        let status: SessionStatus
        let attempt: Int, maxAttempts: Int
        /// The attempt that just failed, when this frame ended one and another may start.
        let retry: CaptureService.FrameProgress.Retry?
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
        let started = ContinuousClock.now
        let waitedMs = (started - request.receivedAt).milliseconds
        if let limit = context.configuration.maxFrameWait, waitedMs > limit * 1000 {
            context.metrics.add("vigil_frames_refused_total{reason=\"frame_late\"}")
            throw ServerContext.busy(min(1000, max(100, Int(waitedMs))), "this frame waited too long for the server; send the next one later")
        }
        let record = try context.openDeviceSession(request)
        try requireJPEG(request, "a frame")
        guard let text = request.header("vigil-capture-time"), let captureMs = Int(text), (0...3_600_000).contains(captureMs) else {
            throw HTTPError(.invalidCaptureTime, "'Vigil-Capture-Time' must be the capture time in ms since capture start (0-3600000)")
        }
        let image = try decodeJPEG(request, maxPixels: 1920 * 1080)
        // What a frame decoded and analysed costs its worker, from its start to its answer,
        // measures the node's capacity; a refusal before that is no measure of it.
        defer { context.admission.served(frameMs: (ContinuousClock.now - started).milliseconds, pixels: image.width * image.height) }
        let progress = try context.capture.frame(record, image: image, jpeg: request.body, captureMs: captureMs)
        if progress.record.status.isFinal { context.admission.release(sessionId: record.id) }
        return .json(try answer(progress, context), headers: [("Cache-Control", "no-store")])
    }

    /// Refuses a body whose `Content-Type` is not `image/jpeg` (`what`: a frame, a document photo).
    static func requireJPEG(_ request: HTTPRequest, _ what: String) throws(HTTPError) {
        guard request.header("content-type")?.lowercased().hasPrefix("image/jpeg") == true else {
            throw HTTPError(.unsupportedMediaType, "\(what) is one JPEG with 'Content-Type: image/jpeg'")
        }
    }

    /// The body decoded as a JPEG of at most `maxPixels`.
    static func decodeJPEG(_ request: HTTPRequest, maxPixels: Int) throws(HTTPError) -> Image {
        guard request.body.count >= 4, request.body[0] == 0xFF, request.body[1] == 0xD8, request.body[2] == 0xFF else {
            throw HTTPError(.invalidImage, "the body is not a JPEG")
        }
        do {
            return try Image(encoded: request.body, maxPixels: maxPixels)
        } catch {
            throw HTTPError(.invalidImage, "the JPEG cannot be decoded: \(error.description)")
        }
    }

    /// The frame answer from the engine after a frame.
    static func answer(_ progress: CaptureService.FrameProgress, _ context: ServerContext) throws(ServiceError) -> FrameAnswer {
        let engine = progress.engine, update = progress.update
        let challenge = update?.challengeIndex.map { i in
            ChallengeView(index: i, total: engine.tracker.challenges.count, kind: engine.tracker.challenges[i].kind, progress: update?.progress ?? 0,
                          state: engine.tracker.challenges[i].state)
        }
        var reflection: FrameAnswer.Reflection?
        if let start = engine.reflectionStartMs, let sequence = engine.reflectionSequence {
            reflection = .init(colors: sequence.colors, startMs: start, stepMs: sequence.stepMs)
        }
        let record = progress.record, verdict = record.verdict
        return FrameAnswer(status: record.status, attempt: progress.attempt, maxAttempts: record.policy.maxAttempts,
                           retry: progress.retry,
                           face: progress.face, guidance: update?.guidance, challenge: challenge, reflection: reflection, outcome: verdict?.outcome,
                           feedback: verdict?.feedback, lockedOut: verdict?.lockedOut, signedResult: try context.deviceSignedResult(verdict))
    }

    static func finish(_ request: HTTPRequest, _ context: ServerContext) throws -> HTTPResponse {
        let record = try context.openDeviceSession(request)
        context.admission.release(sessionId: record.id)
        return .json(try statusView(try context.lifecycle.finish(record), context))
    }

    static func cancel(_ request: HTTPRequest, _ context: ServerContext) throws -> HTTPResponse {
        let record = try context.deviceSession(request)
        context.admission.release(sessionId: record.id)
        return .json(try statusView(try context.lifecycle.cancel(record), context))
    }
}
