import VigilCore
import VigilFace

/// The engine's verdict on a session.
public struct LivenessDecision: Codable, Hashable, Sendable {
    /// The two outcomes.
    public enum Outcome: String, Codable, Sendable {
        /// Every required challenge passed and no passive check failed.
        case passed
        /// Anything else.
        case failed
    }

    /// The outcome.
    public let outcome: Outcome
    /// In [0, 1]; at least 0.5 exactly when passed.
    public let score: Double
    /// Up to three codes, most useful first, for the next attempt (empty when passed).
    public let feedback: [FeedbackCode]
    /// Each check's result, by name: the passive checks, the evidence's, and `challenges`.
    public let checks: [String: CheckResult]
    /// The challenges and what happened to them.
    public let challenges: [ChallengeRecord]
    /// The comparison with the reference photo, when the session had one.
    public let match: FaceMatch?
    /// The comparison with the document's portrait, when the policy asked for one.
    public let documentMatch: FaceMatch?

    /// Feedback codes at most.
    public static let maxFeedback = 3
    /// Live guidance seen on at least this share of frames is worth reporting.
    public static let guidanceShare = 0.2

    /// The failed checks and the reasons of challenges that did not pass, as `name:reason`
    /// (for logs and reports; the `challenges` check repeats the first challenge's, so it is left out).
    public var reasons: [String] {
        checks.filter { !$0.value.passed && $0.key != "challenges" }.map { "\($0.key):\($0.value.reason ?? "failed")" }.sorted()
            + challenges.compactMap { c in c.reason.map { "\(c.kind.rawValue):\($0)" } }
    }

    /// Decides from the challenges, the passive checks and how often each live guidance code was
    /// shown over `frames` frames.
    public static func decide(challenges: [ChallengeRecord], checks: [String: CheckResult],
                              guidance: [FeedbackCode: Int], frames: Int, match: FaceMatch? = nil,
                              documentMatch: FaceMatch? = nil) -> LivenessDecision {
        let challengesPassed = challenges.allSatisfy { $0.state == .passed }
        let checksPassed = checks.values.allSatisfy(\.passed)
        let passed = challengesPassed && checksPassed
        let passedShare = challenges.isEmpty ? 1 : Double(challenges.filter { $0.state == .passed }.count) / Double(challenges.count)
        let checkScore = checks.isEmpty ? 1 : checks.values.map(\.score).reduce(0, +) / Double(checks.count)
        let raw = passedShare * checkScore
        let score = passed ? 0.5 + raw / 2 : min(raw, 1) * 0.49

        var feedback: [FeedbackCode] = []
        if !passed {
            // What the person can fix first: a placement or lighting problem seen often, then what
            // failed in the challenges, then the failed checks in a fixed order of importance.
            if let (code, count) = guidance.filter({ $0.key != .motionIssue }).max(by: { $0.value < $1.value }),
               frames > 0, Double(count) / Double(frames) >= guidanceShare {
                feedback.append(code)
            }
            if challenges.contains(where: { $0.state == .timedOut }) { feedback.append(.challengeTimeout) }
            if challenges.contains(where: { $0.state == .failed }) { feedback.append(.motionIssue) }
            let order: [FeedbackCode] = [.faceMismatch, .documentIssue, .identityChanged, .multipleFaces, .faceNotFound, .lightingIssue, .motionIssue,
                                         .deviceIssue, .holdStill]
            let failed = checks.values.compactMap { $0.passed ? nil : $0.feedback }
            feedback += order.filter(failed.contains)
            // Someone else's face makes everything else beside the point.
            if failed.contains(.faceMismatch) { feedback.insert(.faceMismatch, at: 0) }
            if feedback.isEmpty { feedback.append(.unknown) }
            feedback = feedback.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
        }
        // The challenges as a check too, for the result: the score above already counts them.
        let passedCount = challenges.filter { $0.state == .passed }.count
        var all = checks
        all["challenges"] = CheckResult(
            passed: challengesPassed, score: challenges.isEmpty ? 1 : Double(passedCount) / Double(challenges.count),
            reason: challenges.first { $0.state != .passed }.map { "\($0.kind.rawValue):\($0.reason ?? $0.state.rawValue)" })
        return LivenessDecision(outcome: passed ? .passed : .failed, score: score,
                                feedback: Array(feedback.prefix(maxFeedback)), checks: all, challenges: challenges, match: match,
                                documentMatch: documentMatch)
    }
}
