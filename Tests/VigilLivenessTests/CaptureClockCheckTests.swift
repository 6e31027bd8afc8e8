import Foundation
import Testing
import VigilLiveness

@Suite struct CaptureClockCheckTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// Frames every 100 ms of capture time, the `i`th arriving `arrivalS(i)` seconds after the start.
    static func check(frames: Int, arrivalS: (Int) -> Double) -> CaptureClockCheck {
        var clock = CaptureClockCheck()
        for i in 0..<frames { clock.observe(captureMs: i * 100, arrival: start.addingTimeInterval(arrivalS(i))) }
        return clock
    }

    @Test func aCameraPassesWhateverItsNetworkDoes() {
        #expect(CaptureClockCheck().result.passed && Self.check(frames: 1) { _ in 0 }.result.passed)
        // Live at 10 fps behind a steady 300 ms upload.
        #expect(Self.check(frames: 100) { Double($0) / 10 + 0.3 }.result.passed)
        // A network that gets slow: every upload from the middle on takes 1.5 s more.
        #expect(Self.check(frames: 100) { Double($0) / 10 + ($0 < 50 ? 0.1 : 1.6) }.result.passed)
        // The first upload pays 4 s for the connection, the rest are quick.
        #expect(Self.check(frames: 100) { $0 == 0 ? 4 : Double($0) / 10 + 0.2 }.result.passed)
        // Jitter of up to two seconds on single uploads.
        #expect(Self.check(frames: 100) { Double($0) / 10 + ($0.isMultiple(of: 7) ? 2 : 0.1) }.result.passed)
    }

    @Test func aFeedFasterThanRealTimeFails() {
        // Ten seconds of capture delivered in two.
        let replay = Self.check(frames: 100) { Double($0) / 50 }
        #expect(!replay.result.passed && replay.result.reason == "capture_clock_ahead")
        #expect(abs((replay.aheadMs ?? 0) - 7600) < 1)   // (9.9 - 0.4 s of capture) minus (1.98 - 0.08 s of arrivals)
        // Even when its first uploads were slow.
        #expect(!Self.check(frames: 100) { $0 < 3 ? 3 : Double($0) / 50 }.result.passed)
        // A quarter faster than real time over a minute is beyond the jitter allowed too.
        #expect(!Self.check(frames: 600) { Double($0) / 12.5 }.result.passed)
    }

    @Test func aFeedStampedFasterThanItIsSentFails() {
        // Twelve frames sent a second apart with capture times 50 ms apart: a second to render each.
        var clock = CaptureClockCheck()
        for i in 0..<12 { clock.observe(captureMs: i * 50, arrival: Self.start.addingTimeInterval(Double(i))) }
        #expect(!clock.result.passed && clock.result.reason == "capture_clock_behind" && clock.result.feedback == .deviceIssue)
        // Half real speed over ten seconds of capture.
        #expect(Self.check(frames: 100) { Double($0) / 5 }.result.reason == "capture_clock_behind")
    }
}
