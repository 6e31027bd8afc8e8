import Foundation
import Testing
@testable import VigilServer

@Suite struct CaptureClockCheckTests {
    @Test func aClockAheadOfArrivalsBeyondJitterFailsAndSlowOrDroppedFramesDoNot() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        func check(_ frames: [(captureMs: Int, arrivalS: Double)]) -> CaptureClockCheck {
            var clock = CaptureClockCheck()
            for f in frames { clock.observe(captureMs: f.captureMs, arrival: start.addingTimeInterval(f.arrivalS)) }
            return clock
        }
        #expect(check([]).result.passed && check([(0, 0)]).result.passed)
        // A camera behind a slow network, dropping frames: its clock lags arrivals.
        #expect(check([(0, 0), (1000, 2.5), (2000, 5)]).result.passed)
        // Upload jitter: the first frame late by up to two seconds.
        #expect(check([(0, 0), (5000, 3.1)]).result.passed)
        // Ten seconds of capture delivered in one: a recording.
        let replay = check([(0, 0), (5000, 0.5), (10_000, 1)])
        #expect(!replay.result.passed && replay.result.reason == "capture_clock_ahead" && replay.aheadMs == 9000)
        // A late frame with an older capture time does not move the end back.
        #expect(!check([(0, 0), (10_000, 1), (200, 1.2)]).result.passed)
    }
}
