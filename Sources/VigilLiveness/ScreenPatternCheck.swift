import VigilCore

/// Screen signs: moire on the face. Samples of `ScreenPatternMeter.periodicity` are collected
/// through the session; a screen shows strong peaks in a good share of them (where the screen is
/// tilted against the camera), skin in none.
public struct ScreenPatternCheck: Codable, Sendable {
    /// A sample above this counts as periodic. Skin measures about 2-16 on rendered frames; on
    /// real, broadcast-compressed clips 5 at the median but over 25 on 3.4% of frames (lips and
    /// brows in the chroma), over 40 on 0.6%. A screen's moire is over 40 on 82% of frames.
    public var peakThreshold = 40.0
    /// The share of periodic samples that fails the session.
    public var maxPeriodicShare = 0.3
    /// Samples needed for a verdict; fewer pass (inconclusive).
    public var minSamples = 3

    private var samples = 0
    private var periodic = 0

    /// Creates the check with default limits.
    public init() {}

    /// Records one measurement.
    public mutating func observe(periodicity: Double) {
        samples += 1
        if periodicity > peakThreshold { periodic += 1 }
    }

    /// The verdict so far.
    public var result: CheckResult {
        guard samples >= minSamples else { return CheckResult(passed: true, score: 0.5, reason: "too_few_samples") }
        let share = Double(periodic) / Double(samples)
        guard share < maxPeriodicShare else {
            return CheckResult(passed: false, score: max(0, 1 - share), feedback: .deviceIssue, reason: "screen_pattern")
        }
        return CheckResult(passed: true, score: 1 - share)
    }
}
