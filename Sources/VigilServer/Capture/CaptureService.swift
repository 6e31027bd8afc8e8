import Foundation
import VigilCore
import VigilFace
import VigilLiveness
import VigilStore

/// An open session's capture under the HTTP layer: processing a frame (and starting the next
/// attempt when one fails) and changing the session (reports from the page, declining the
/// flashes). How a session starts and ends is `SessionLifecycle`'s, its document step
/// `DocumentStep`'s. Handlers parse, call one of these, and render; every refusal is a
/// `ServiceError`.
struct CaptureService {
    /// Frames accepted per session.
    static let maxFrames = 3000

    let context: ServerContext

    // MARK: Frames

    /// What a frame did to the session.
    struct FrameProgress {
        /// The attempt that just failed, when this frame ended one and another began.
        struct Retry: Encodable { let feedback: [FeedbackCode], attemptsLeft: Int }
        /// The session as stored after the frame.
        let record: SessionRecord
        /// The attempt now running, and its engine.
        let attempt: Int, engine: LivenessEngine
        /// The engine's answer to the frame (nil when a new attempt began).
        let update: TrackerUpdate?
        let retry: Retry?
        /// Whether the frame held a face.
        let face: Bool
    }

    /// Runs one decoded frame (`jpeg` as uploaded, captured at `captureMs` on the page's clock)
    /// through the session's engine; decides, retries or completes when the attempt is over.
    func frame(_ record: SessionRecord, image: Image, jpeg: [UInt8], captureMs: Int) throws(ServiceError) -> FrameProgress {
        try context.live.withEngine(record, context) { (entry) throws(ServiceError) in
            if entry.record.policy.document?.required == true, entry.record.document == nil {
                throw ServiceError(.documentRequired, "this session's policy asks for the identity document before the face")
            }
            guard entry.capture.engine.frameCount < Self.maxFrames else {
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
            let personalData: PersonalDataChange = entry.capture.engine.bestFrame?.timestampMs == captureMs
                ? .storeAuditImage(AuditImage(jpeg: jpeg, deleteAfter: retainedUntil)) : .keep
            var retry: FrameProgress.Retry?
            if entry.capture.engine.finished {
                let decision = try context.lifecycle.decide(entry)
                if decision.outcome == .failed, entry.attempt < entry.record.policy.maxAttempts {
                    // Another attempt with a new plan; the tenant only ever sees the last one.
                    entry.attempt += 1
                    retry = .init(feedback: decision.feedback, attemptsLeft: entry.record.policy.maxAttempts - entry.attempt + 1)
                    entry.restart(SessionLifecycle.engine(for: entry.record.attemptPolicy))
                    context.metrics.add("vigil_attempts_failed_total")
                    // The tenant sees only the last attempt; the log keeps why the others failed.
                    context.logger.log(.info, "attempt_failed", [
                        "sessionId": .text(record.id), "tenantId": .text(record.tenantId), "attempt": .integer(entry.attempt - 1),
                        "feedback": .text(decision.feedback.map(\.rawValue).joined(separator: ",")),
                        "reasons": .text(decision.reasons.joined(separator: ",")),
                    ])
                } else {
                    entry.record = try context.lifecycle.complete(entry.record, decision, attempt: entry.attempt, personalData: personalData, frameHash: frameHash)
                }
            }
            if !entry.record.status.isFinal {
                var next = entry.record
                next.status = .capturing
                try context.live.save(entry, next, personalData: personalData, frameHash: frameHash, context)
            }
            return FrameProgress(record: entry.record, attempt: entry.attempt, engine: entry.capture.engine, update: retry == nil ? update : nil,
                                 retry: retry, face: entry.capture.lastObservation?.frame.faces.isEmpty == false)
        }
    }

    // MARK: Changing an open session

    /// Changes an open session under its engine's lock (a report from the page, declining the
    /// flashes) and stores it with the engine as `change` left it.
    func change<T>(_ record: SessionRecord, personalData: PersonalDataChange = .keep,
                   _ change: (inout SessionRecord, LiveSessions.Entry) throws(ServiceError) -> T) throws(ServiceError) -> T {
        try context.live.withEngine(record, context) { (entry) throws(ServiceError) in
            var next = entry.record
            let value = try change(&next, entry)
            try context.live.save(entry, next, personalData: personalData, context)
            return value
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
            guard entry.capture.engine.reflectionStartMs == nil else {
                throw ServiceError(.reflectionStarted, "the flashes already started in this attempt")
            }
            next.risk = next.risk ?? SessionRisk()
            next.risk?.reflectionDeclined = true
            entry.restart(SessionLifecycle.engine(for: fallback))
            context.metrics.add("vigil_reflection_declined_total")
            return (entry.attempt, fallback.count)
        }
    }
}
