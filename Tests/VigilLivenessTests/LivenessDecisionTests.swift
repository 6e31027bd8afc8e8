import Foundation
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

    /// The one decision turns what the caller brings into checks by the same rule as the
    /// engine's own, and lists the challenges as a check of the result.
    @Test func evidenceBecomesChecksOfTheOneDecision() {
        var policy = LivenessPolicy(count: 1)
        policy.refuseVirtualCamera = true
        let session = LivenessEngine(policy: policy, plan: ChallengePlan(motions: [.nod], holdMs: [500], reflection: nil))
        let bare = session.decide()
        #expect(bare.checks["captureClock"] == nil && bare.checks["crossSessionFrames"] == nil && bare.checks["match"] == nil)
        #expect(bare.checks["challenges"]?.passed == false && bare.checks["challenges"]?.reason == "nod:pending")
        #expect(bare.checks["camera"]?.passed == true)

        var ahead = CaptureClockCheck()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for i in 0..<20 { ahead.observe(captureMs: i * 1000, arrival: start.addingTimeInterval(Double(i) * 0.05)) }
        let evidence = SessionEvidence(captureClock: ahead, framesSeenElsewhere: 3, reference: FaceDescriptor([Float](repeating: 0.05, count: 128)),
                                       virtualCamera: true)
        let decided = session.decide(evidence: evidence)
        #expect(decided.outcome == .failed)
        #expect(decided.checks["captureClock"]?.reason == "capture_clock_ahead")
        #expect(decided.checks["crossSessionFrames"]?.reason == "frames_seen_in_other_sessions")
        #expect(decided.checks["match"]?.reason == "no_live_face" && decided.match == nil)
        #expect(decided.checks["camera"]?.reason == "virtual_camera")
        #expect(session.decide(evidence: SessionEvidence(framesSeenElsewhere: 2)).checks["crossSessionFrames"]?.passed == true)
    }
}
