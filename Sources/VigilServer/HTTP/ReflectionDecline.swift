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
        let record = try context.openDeviceSession(request)
        let restarted = try context.capture.declineReflection(record)
        return .json(MotionOnlyAnswer(attempt: restarted.attempt, challenges: restarted.challenges))
    }

    /// The answer: the attempt goes on with this many motion challenges and no flashes.
    struct MotionOnlyAnswer: Encodable {
        let type = "motion"
        let attempt: Int, challenges: Int
    }
}
