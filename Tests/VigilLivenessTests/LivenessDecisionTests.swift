import Testing
import VigilCore
import VigilFace
@testable import VigilLiveness

@Suite struct LivenessDecisionTests {
    static let passedChallenges = [ChallengeRecord(kind: .blink, state: .passed, promptedAtMs: 100, endedAtMs: 900)]
    static let good = CheckResult(passed: true, score: 0.9)

    @Test func passesOnlyWhenEveryChallengeAndCheckPassed() {
        let ok = LivenessDecision.decide(challenges: Self.passedChallenges, checks: ["timing": Self.good], guidance: [:], frames: 50)
        #expect(ok.outcome == .passed && ok.score >= 0.5 && ok.feedback.isEmpty)
        let badCheck = LivenessDecision.decide(challenges: Self.passedChallenges,
                                               checks: ["timing": Self.good, "planar": CheckResult(passed: false, score: 0.1, feedback: .motionIssue)],
                                               guidance: [:], frames: 50)
        #expect(badCheck.outcome == .failed && badCheck.score < 0.5 && badCheck.feedback == [.motionIssue])
        let timedOut = LivenessDecision.decide(challenges: [ChallengeRecord(kind: .nod, state: .timedOut, promptedAtMs: 0, endedAtMs: 10_001)],
                                               checks: ["timing": Self.good], guidance: [:], frames: 100)
        #expect(timedOut.outcome == .failed && timedOut.feedback == [.challengeTimeout])
    }

    @Test func feedbackPutsAFrequentFixableProblemFirstAndKeepsAtMostThree() {
        let checks: [String: CheckResult] = [
            "identity": CheckResult(passed: false, score: 0, feedback: .identityChanged),
            "faces": CheckResult(passed: false, score: 0, feedback: .multipleFaces),
            "reflection": CheckResult(passed: false, score: 0.2, feedback: .lightingIssue),
        ]
        let decision = LivenessDecision.decide(challenges: [ChallengeRecord(kind: .blink, state: .timedOut)], checks: checks,
                                               guidance: [.tooDark: 40, .faceTooFar: 5], frames: 100)
        #expect(decision.feedback == [.tooDark, .challengeTimeout, .identityChanged])
    }

    @Test func aFaceMismatchComesBeforeEverythingElse() {
        let decision = LivenessDecision.decide(challenges: [ChallengeRecord(kind: .nod, state: .failed)],
                                               checks: ["match": CheckResult(passed: false, score: 0.1, feedback: .faceMismatch)],
                                               guidance: [.tooDark: 40], frames: 100)
        #expect(decision.feedback == [.faceMismatch, .tooDark, .motionIssue])
    }

    @Test func rareGuidanceIsNotReported() {
        let decision = LivenessDecision.decide(challenges: [ChallengeRecord(kind: .blink, state: .failed)], checks: [:],
                                               guidance: [.blurry: 3], frames: 100)
        #expect(decision.feedback == [.motionIssue])
    }

    @Test func identityCheckCatchesASwapAndAcceptsTheSamePerson() {
        func descriptor(_ shift: Float) -> FaceDescriptor { FaceDescriptor([shift] + [Float](repeating: 0.05, count: 127)) }
        var same = IdentityCheck(), swapped = IdentityCheck()
        for d in [0.0, 0.1, 0.2] as [Float] { same.observe(descriptor(d)) }
        for d in [0.0, 0.1, 0.8] as [Float] { swapped.observe(descriptor(d)) }
        #expect(same.result.passed)
        #expect(!swapped.result.passed && swapped.result.feedback == .identityChanged)
    }
}
