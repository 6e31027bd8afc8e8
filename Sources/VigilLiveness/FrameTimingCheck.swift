/// Replay and injection signs in the frame stream itself: timestamps that go backwards or jump,
/// implausible frame rates, and repeated frames (by content hash).
public struct FrameTimingCheck: Codable, Sendable {
    /// Frame intervals outside this range (ms) are implausible for a live camera at ~10 fps uploads.
    public var intervalRangeMs = 20...2000
    /// Share of repeated frames tolerated (a camera can deliver an identical frame now and then).
    public var maxDuplicateShare = 0.05

    private var lastTimestamp: Int?
    private var frames = 0
    private var nonMonotonic = 0
    private var implausible = 0
    private var duplicates = 0
    private var recentHashes: [UInt64] = []   // a bounded window
    private static let window = 64

    /// Creates the check with default limits.
    public init() {}

    /// Records a frame's capture timestamp and content hash (for example of its JPEG bytes).
    public mutating func observe(timestampMs: Int, contentHash: UInt64) {
        frames += 1
        if let last = lastTimestamp {
            let interval = timestampMs - last
            if interval <= 0 { nonMonotonic += 1 } else if !intervalRangeMs.contains(interval) { implausible += 1 }
        }
        lastTimestamp = max(lastTimestamp ?? timestampMs, timestampMs)
        if recentHashes.contains(contentHash) { duplicates += 1 }
        recentHashes.append(contentHash)
        if recentHashes.count > Self.window { recentHashes.removeFirst() }
    }

    /// The verdict so far.
    public var result: CheckResult {
        guard frames > 1 else { return CheckResult(passed: false, score: 0, feedback: .deviceIssue, reason: "too_few_frames") }
        if nonMonotonic > 0 {
            return CheckResult(passed: false, score: 0, feedback: .deviceIssue, reason: "timestamps_not_monotonic")
        }
        let duplicateShare = Double(duplicates) / Double(frames)
        if duplicateShare > maxDuplicateShare {
            return CheckResult(passed: false, score: 0.1, feedback: .deviceIssue, reason: "duplicate_frames")
        }
        let implausibleShare = Double(implausible) / Double(frames - 1)
        if implausibleShare > 0.2 {
            return CheckResult(passed: false, score: 0.2, feedback: .deviceIssue, reason: "implausible_frame_intervals")
        }
        return CheckResult(passed: true, score: 1 - duplicateShare - implausibleShare / 2)
    }
}
