import Foundation
import VigilCore

/// Frames cannot reach the server before they were captured, nor long after: over an attempt, the
/// capture clock (`Vigil-Capture-Time`) may not run ahead of the server's own clock, or behind
/// it, by more than upload jitter. A recording or injected feed sent faster than real time fails
/// it, and so does one stamped faster than it is sent (time to render every frame); a live page,
/// which sends its newest frame when the last answer is back, lags by one upload only. A server
/// check, as only the server (or a simulation of one) sees arrival times.
///
/// Each frame's offset (arrival minus capture time) is the clock difference plus its upload
/// time. The smallest offset of the first frames is compared with the smallest of the latest:
/// a drop between them is the capture clock running ahead, a rise it running behind. Taking the
/// smallest of several leaves out single slow uploads (the first one pays for the connection).
public struct CaptureClockCheck: Codable, Sendable {
    /// Upload jitter tolerated: this much, plus `slack` of the elapsed time.
    public static let toleranceMs = 2000.0, slack = 0.1
    /// Frames at each end whose smallest offset counts.
    public static let window = 5

    private var early: [Double] = []
    private var recent: [Double] = []
    private var firstArrivalMs: Double?
    private var lastArrivalMs: Double?

    /// A check that has seen no frame.
    public init() {}

    /// Records a frame captured at `captureMs` (its clock) that arrived at `arrival`.
    public mutating func observe(captureMs: Int, arrival: Date = Date()) {
        let arrivalMs = arrival.timeIntervalSince1970 * 1000
        let offset = arrivalMs - Double(captureMs)
        if early.count < Self.window { early.append(offset) }
        recent.append(offset)
        if recent.count > Self.window { recent.removeFirst() }
        firstArrivalMs = firstArrivalMs ?? arrivalMs
        lastArrivalMs = arrivalMs
    }

    /// How far the capture clock ran ahead of arrivals (ms); nil before the first frame.
    public var aheadMs: Double? {
        guard let start = early.min(), let end = recent.min() else { return nil }
        return start - end
    }

    /// The verdict: passed without evidence (too few frames fail elsewhere).
    public var result: CheckResult {
        guard let ahead = aheadMs, let firstArrivalMs, let lastArrivalMs else { return CheckResult(passed: true, score: 1) }
        let allowed = Self.toleranceMs + Self.slack * (lastArrivalMs - firstArrivalMs)
        if ahead > allowed {
            return CheckResult(passed: false, score: max(0, 1 - ahead / (4 * allowed)), feedback: .deviceIssue, reason: "capture_clock_ahead")
        }
        // Running slow is the other way to cheat: frames stamped close together but sent far apart
        // give an injection all the time it wants to render each one. A page sends its newest
        // frame once the last answer is back, so a live capture lags by one upload, not more.
        if -ahead > allowed {
            return CheckResult(passed: false, score: max(0, 1 + ahead / (4 * allowed)), feedback: .deviceIssue, reason: "capture_clock_behind")
        }
        return CheckResult(passed: true, score: 1)
    }
}
