import Foundation
import VigilCore
import VigilFace
import VigilHTTP
import VigilLiveness
import VigilStore

/// Ends a session with the engine's decision (and the reference-photo match, when the session has
/// a reference): the signed result, the stored state and the `session.completed` webhook are
/// written in one transaction.
enum Completion {
    /// Frames also received by other sessions that a session may have (a covered lens can encode
    /// identically anywhere); more, or more than this share of its frames, fail it as a replay.
    static let framesSeenElsewhereAllowed = (count: 2, share: 0.05)

    /// The engine's decision with the server's own checks, and the match when there is a reference.
    struct Decided {
        let decision: LivenessDecision
        let match: VerdictPayload.Match?
    }

    /// Decides the current attempt: the engine's checks plus the reference match and
    /// `crossSessionFrames`, which need the store, `captureClock`, which needs arrival times, and
    /// `camera` when the policy refuses virtual cameras.
    static func decide(_ record: SessionRecord, runner: LivenessRunner, clock: CaptureClockCheck, _ context: ServerContext) throws(HTTPError) -> Decided {
        let reference = try context.stored { () throws(StoreError) in try context.store.referenceFace(sessionId: record.id) }
        var match: VerdictPayload.Match?
        var extraChecks: [String: CheckResult] = [:]
        if let reference {
            if let stored = FaceDescriptor(bytes: reference.descriptor), let live = runner.session.identityDescriptor {
                let compared = FaceMatcher().compare(stored, live)
                match = VerdictPayload.Match(matched: compared.matched, similarity: (compared.similarity * 1000).rounded() / 1000,
                                             distance: (compared.distance * 1000).rounded() / 1000)
                extraChecks["match"] = CheckResult(passed: compared.matched, score: compared.similarity, feedback: .faceMismatch,
                                                   reason: compared.matched ? nil : "face_mismatch")
            } else {
                extraChecks["match"] = CheckResult(passed: false, score: 0, feedback: .faceNotFound, reason: "no_live_face")
            }
        }
        let elsewhere = try context.stored { () throws(StoreError) in try context.store.framesSeenElsewhere(sessionId: record.id) }
        let allowed = max(framesSeenElsewhereAllowed.count, Int(framesSeenElsewhereAllowed.share * Double(runner.session.frameCount)))
        extraChecks["crossSessionFrames"] = elsewhere <= allowed ? CheckResult(passed: true, score: 1)
            : CheckResult(passed: false, score: 0, feedback: .deviceIssue, reason: "frames_seen_in_other_sessions")
        if context.configuration.checkCaptureClock { extraChecks["captureClock"] = clock.result }
        if record.policy.refuseVirtualCamera {
            extraChecks["camera"] = record.risk?.virtualCamera == true
                ? CheckResult(passed: false, score: 0, feedback: .deviceIssue, reason: "virtual_camera") : CheckResult(passed: true, score: 1)
        }
        return Decided(decision: runner.decide(extraChecks: extraChecks), match: match)
    }

    /// Ends the session with `decided` (on attempt `attempt`).
    static func complete(_ record: SessionRecord, _ decided: Decided, attempt: Int, personalData: PersonalDataChange = .keep,
                         _ context: ServerContext) throws(HTTPError) -> SessionRecord {
        let decision = decided.decision
        var checks = decision.checks.mapValues { VerdictPayload.Check(passed: $0.passed, score: $0.score, reason: $0.reason) }
        let passedChallenges = decision.challenges.filter { $0.state == .passed }.count
        checks["challenges"] = VerdictPayload.Check(
            passed: decision.challenges.allSatisfy { $0.state == .passed },
            score: decision.challenges.isEmpty ? 1 : Double(passedChallenges) / Double(decision.challenges.count),
            reason: decision.challenges.first { $0.state != .passed }.map { "\($0.kind.rawValue):\($0.reason ?? $0.state.rawValue)" })
        let now = Date()
        let payload = VerdictPayload(iss: context.baseURL, aud: record.tenantId, sub: record.id, iat: Int(now.timeIntervalSince1970),
                                     jti: Identifiers.id("res_"), externalRef: record.externalRef, outcome: decision.outcome.rawValue,
                                     score: (decision.score * 1000).rounded() / 1000, feedback: decision.feedback, checks: checks,
                                     match: decided.match, risk: record.risk, attempt: attempt,
                                     lockedOut: decision.outcome == .failed && attempt >= record.policy.maxAttempts ? true : nil)
        let signed: (json: [UInt8], jws: String)
        do {
            signed = try context.signer.sign(payload)
        } catch {
            throw HTTPError(.signingFailed, "the result could not be signed")
        }
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
