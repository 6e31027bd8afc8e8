import VigilFace

/// Same person throughout: descriptors from a few frames spread over the session are compared
/// with the first; a face swapped in mid-session is far from it.
public struct IdentityCheck: Codable, Sendable {
    /// Distances above this between frames of one session mean another person.
    public var maxDistance = 0.6

    private var first: FaceDescriptor?
    /// The first sample: a resting, near-frontal face of the person (what a reference photo is
    /// compared with).
    public var firstDescriptor: FaceDescriptor? { first }
    private var samples = 0
    private var largest = 0.0

    /// Creates the check with the default limit.
    public init() {}

    /// Records the descriptor of one sampled frame.
    public mutating func observe(_ descriptor: FaceDescriptor) {
        samples += 1
        guard let first else {
            self.first = descriptor
            return
        }
        largest = max(largest, first.distance(to: descriptor))
    }

    /// The verdict; fewer than two samples cannot show a change. The face was found then, but
    /// not looking at the camera long enough: the guidance says to.
    public var result: CheckResult {
        guard samples >= 2 else { return CheckResult(passed: false, score: 0, feedback: .holdStill, reason: "too_few_samples") }
        let score = max(0, 1 - largest / (2 * maxDistance))   // `largestDistance(score:)` inverts it
        guard largest <= maxDistance else {
            return CheckResult(passed: false, score: score, feedback: .identityChanged, reason: "identity_changed")
        }
        return CheckResult(passed: true, score: score)
    }

    /// The largest distance a passing or `identity_changed` result's score stands for (up to
    /// twice the limit, where the score stops at 0).
    public func largestDistance(score: Double) -> Double { (1 - score) * 2 * maxDistance }
}
