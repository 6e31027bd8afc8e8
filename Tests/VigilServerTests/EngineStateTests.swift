import Foundation
import Testing
import VigilCore
import VigilLiveness
@testable import VigilServer

@Suite struct EngineStateTests {
    /// Sessions in flight across an upgrade are continued from what the version before stored:
    /// the attempt under `runner`, its engine under `session`, as that version wrote them.
    @Test func aStoredStateKeepsTheKeysTheVersionBeforeWrote() throws {
        let engine = SessionLifecycle.engine(for: try LivenessPolicy.preset(.medium).validated())
        let state = EngineState(capture: CaptureAttempt.State(engine: engine, frames: 7), attempt: 2)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(state.bytes)) as? [String: Any])
        let runner = try #require(object["runner"] as? [String: Any])
        #expect(runner["frames"] as? Int == 7 && runner["session"] is [String: Any])
        #expect(object["attempt"] as? Int == 2)
        let decoded = try EngineState(state.bytes)
        #expect(decoded.capture.frames == 7 && decoded.capture.engine.plan.motions == engine.plan.motions)
    }
}
