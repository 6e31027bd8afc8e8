import VigilCore

/// The verdict of one passive check.
public struct CheckResult: Codable, Hashable, Sendable {
    /// Whether the check found nothing wrong.
    public let passed: Bool
    /// Confidence that the session is genuine as far as this check can tell, in [0, 1].
    public let score: Double
    /// Guidance for the person when the check failed.
    public let feedback: FeedbackCode?
    /// Short machine-readable reason, for audit (never shown to the person).
    public let reason: String?

    /// Creates a result.
    public init(passed: Bool, score: Double, feedback: FeedbackCode? = nil, reason: String? = nil) {
        self.passed = passed
        self.score = min(max(score, 0), 1)
        self.feedback = feedback
        self.reason = reason
    }
}
