import Foundation
import VigilLiveness

/// What the store keeps of a session's engine: the drawn plan. A session whose process died
/// restarts its challenges from the plan on the next frame.
struct EngineSnapshot: Codable {
    var plan: ChallengePlan

    var bytes: [UInt8] { (try? JSONEncoder().encode(self)).map { [UInt8]($0) } ?? [] }

    init(plan: ChallengePlan) { self.plan = plan }

    init?(_ bytes: [UInt8]?) {
        guard let bytes, let decoded = try? JSONDecoder().decode(EngineSnapshot.self, from: Data(bytes)) else { return nil }
        self = decoded
    }
}
