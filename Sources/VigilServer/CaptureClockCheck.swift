import Foundation
import VigilCore
import VigilLiveness

/// Frames cannot reach the server before they were captured: over an attempt, the capture
/// clock (`Vigil-Capture-Time`) may not run ahead of the server's own clock by more than upload
/// jitter. A recording or injected feed sent faster than real time fails it; a live camera,
/// however slow its network, cannot. A server check, as only the server sees arrival times.
struct CaptureClockCheck: Codable, Sendable {
    /// Upload jitter tolerated: this much, plus `slack` of the elapsed time.
    static let toleranceMs = 2000.0, slack = 0.1

    private var first: Sample?
    private var last: Sample?

    private struct Sample: Codable, Sendable {
        let captureMs: Int
        let arrivalMs: Double
    }

    /// Records a frame captured at `captureMs` (its clock) that arrived at `arrival`.
    mutating func observe(captureMs: Int, arrival: Date = Date()) {
        let sample = Sample(captureMs: captureMs, arrivalMs: arrival.timeIntervalSince1970 * 1000)
        if first == nil { first = sample }
        if captureMs >= last?.captureMs ?? Int.min { last = sample }
    }

    /// How far the capture clock ran ahead of arrivals (ms), once there are two frames.
    var aheadMs: Double? {
        guard let first, let last, last.captureMs > first.captureMs else { return nil }
        return Double(last.captureMs - first.captureMs) - (last.arrivalMs - first.arrivalMs)
    }

    /// The verdict: passed without evidence (too few frames fail elsewhere).
    var result: CheckResult {
        guard let ahead = aheadMs, let first, let last else { return CheckResult(passed: true, score: 1) }
        let allowed = Self.toleranceMs + Self.slack * max(0, last.arrivalMs - first.arrivalMs)
        guard ahead > allowed else { return CheckResult(passed: true, score: 1) }
        return CheckResult(passed: false, score: max(0, 1 - ahead / (4 * allowed)), feedback: .deviceIssue, reason: "capture_clock_ahead")
    }
}
