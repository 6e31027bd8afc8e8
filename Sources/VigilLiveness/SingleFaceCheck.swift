import VigilFace

/// Exactly one face, present through the session: several faces, or long stretches without one,
/// fail it.
public struct SingleFaceCheck: Codable, Sendable {
    /// Share of frames allowed without a face (blinks of the detector, brief occlusion).
    public var maxMissingShare = 0.3

    private var frames = 0
    private var missing = 0
    private var crowded = 0

    /// Creates the check with default limits.
    public init() {}

    /// Records how many faces one frame held.
    public mutating func observe(faceCount: Int) {
        frames += 1
        if faceCount == 0 { missing += 1 }
        if faceCount > 1 { crowded += 1 }
    }

    /// The verdict so far.
    public var result: CheckResult {
        guard frames > 0 else { return CheckResult(passed: false, score: 0, feedback: .faceNotFound, reason: "no_frames") }
        if crowded > 0 { return CheckResult(passed: false, score: 0, feedback: .multipleFaces, reason: "multiple_faces") }
        let share = Double(missing) / Double(frames)
        if share > maxMissingShare { return CheckResult(passed: false, score: 1 - share, feedback: .faceNotFound, reason: "face_missing") }
        return CheckResult(passed: true, score: 1 - share)
    }
}
