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
        guard !record.status.isFinal else { throw CaptureService.finished(record) }
        let restarted = try context.capture.declineReflection(record)
        return .json(MotionOnlyAnswer(attempt: restarted.attempt, challenges: restarted.challenges))
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
