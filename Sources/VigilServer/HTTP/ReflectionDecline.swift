import Foundation
import VigilCore
import VigilHTTP
import VigilLiveness
import VigilStore

/// `POST /v1/client/decline-reflection`: a person who declines the colour flashes goes on with
/// motions only, when the tenant's policy allows it (`motionOnlyFallback`). The current attempt
/// starts over with the motion-only plan (not counted as a failure), every later attempt keeps
/// it, and the signed result says so (`risk.reflectionDeclined`).
extension DeviceAPI {
    static func declineReflection(_ request: HTTPRequest, _ context: ServerContext) throws -> HTTPResponse {
        let record = try context.deviceSession(request)
        guard !record.status.isFinal else { throw finished(record) }
        guard let fallback = record.policy.motionOnly() else {
            throw HTTPError(.motionOnlyNotAllowed, "this session's policy has no motion-only alternative")
        }
        return try withEngine(record, context) { entry in
            guard entry.record.risk?.reflectionDeclined != true else {
                throw HTTPError(.reflectionAlreadyDeclined, "the flashes were declined already")
            }
            guard entry.runner.session.reflectionStartMs == nil else {
                throw HTTPError(.reflectionStarted, "the flashes already started in this attempt")
            }
            entry.restart(newEngine(fallback))
            var next = entry.record
            next.risk = next.risk ?? SessionRisk()
            next.risk?.reflectionDeclined = true
            next.engineState = entry.state.bytes
            next.updatedAt = Date()
            try save(entry, next, personalData: .keep, context)
            context.metrics.add("vigil_reflection_declined_total")
            return .json(MotionOnlyAnswer(attempt: entry.attempt, challenges: fallback.count))
        }
    }

    /// The answer: the attempt goes on with this many motion challenges and no flashes.
    struct MotionOnlyAnswer: Encodable {
        let type = "motion"
        let attempt: Int, challenges: Int
    }
}

extension SessionRecord {
    /// The policy each attempt runs: the tenant's, or its motion-only fallback once declined.
    var attemptPolicy: LivenessPolicy {
        risk?.reflectionDeclined == true ? policy.motionOnly() ?? policy : policy
    }
}
