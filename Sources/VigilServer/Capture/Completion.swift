import Foundation
import VigilCore
import VigilFace
import VigilHTTP
import VigilLiveness
import VigilStore

/// Ends a session with the engine's decision: the signed result, the stored state and the
/// `session.completed` webhook are written in one transaction.
enum Completion {
    /// Decides the current attempt: the engine's one decision, on its frames and on the evidence
    /// only the server has (the reference face and frames of other sessions from the store,
    /// arrival times, the camera the page reported).
    static func decide(_ record: SessionRecord, runner: LivenessRunner, clock: CaptureClockCheck, _ context: ServerContext) throws(HTTPError) -> LivenessDecision {
        let reference = try context.stored { () throws(StoreError) in try context.store.referenceFace(sessionId: record.id) }
        let elsewhere = try context.stored { () throws(StoreError) in try context.store.framesSeenElsewhere(sessionId: record.id) }
        var descriptor: FaceDescriptor?
        if let reference {
            guard let decoded = FaceDescriptor(bytes: reference.descriptor) else {
                throw HTTPError(.internalError, "the session's reference face cannot be read", cause: "stored reference descriptor does not decode")
            }
            descriptor = decoded
        }
        let evidence = SessionEvidence(captureClock: context.configuration.checkCaptureClock ? clock : nil, framesSeenElsewhere: elsewhere,
                                       reference: descriptor, virtualCamera: record.risk?.virtualCamera == true)
        return runner.decide(evidence: evidence)
    }

    /// Ends the session with `decision` (on attempt `attempt`).
    static func complete(_ record: SessionRecord, _ decision: LivenessDecision, attempt: Int, personalData: PersonalDataChange = .keep,
                         _ context: ServerContext) throws(HTTPError) -> SessionRecord {
        let checks = decision.checks.mapValues { VerdictPayload.Check(passed: $0.passed, score: $0.score, reason: $0.reason) }
        let match = decision.match.map {
            VerdictPayload.Match(matched: $0.matched, similarity: ($0.similarity * 1000).rounded() / 1000, distance: ($0.distance * 1000).rounded() / 1000)
        }
        let now = Date()
        let payload = VerdictPayload(iss: context.baseURL, aud: record.tenantId, sub: record.id, iat: Int(now.timeIntervalSince1970),
                                     jti: Identifiers.id("res_"), externalRef: record.externalRef, outcome: decision.outcome.rawValue,
                                     score: (decision.score * 1000).rounded() / 1000, feedback: decision.feedback, checks: checks,
                                     match: match, risk: record.risk, attempt: attempt,
                                     lockedOut: decision.outcome == .failed && attempt >= record.policy.maxAttempts ? true : nil)
        let signed = try context.sign(payload)
        var completed = record
        completed.status = .completed
        completed.result = signed.json
        completed.signedResult = signed.jws
        completed.outcome = decision.outcome.rawValue
        completed.engineState = nil
        completed.updatedAt = now
        let webhook = try context.stored { () throws(StoreError) in try context.event("session.completed", for: completed, result: payload) }
        let stored = try context.stored { () throws(StoreError) in try context.store.updateSession(completed, enqueue: webhook, personalData: personalData) }
        context.live.remove(record.id)
        context.metrics.add("vigil_sessions_completed_total{outcome=\"\(decision.outcome.rawValue)\"}")
        return stored
    }
}

/// Webhook bodies.
extension WebhookEvent {
    /// A pending delivery of `event` for `session`.
    static func delivery(_ event: String, session: SessionRecord, result: VerdictPayload?) -> WebhookDelivery {
        let id = Identifiers.id("evt_")
        let body = WebhookEvent(id: id, type: event, createdAt: Date(), sessionId: session.id, externalRef: session.externalRef,
                                status: session.status, result: result, signedResult: session.signedResult)
        let payload = (try? HTTPJSON.encoder.encode(body)).map { [UInt8]($0) } ?? []
        return WebhookDelivery(id: id, tenantId: session.tenantId, sessionId: session.id, event: event, payload: payload, createdAt: Date())
    }
}
