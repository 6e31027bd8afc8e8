import Foundation
import Testing
import VigilCore
import VigilFace
@testable import VigilLiveness

@Suite struct LivenessSessionTests {
    /// A cooperating subject: holds still until prompted, performs each motion, then looks at the
    /// flashing screen, whose light tints the face.
    static func run(_ session: inout LivenessSession, person: Subject, repeatFrames: Bool = false) -> LivenessDecision {
        var clock = 0, index = 0
        var motionFrame: Int?
        var hash: UInt64 = 1
        func frame(_ subject: Subject, tint: ReflectionColor? = nil) -> LivenessFrame {
            var face = subject.observation()
            if let tint {
                face.color.red += 0.04 * Double(tint.red) / 255
                face.color.green += 0.04 * Double(tint.green) / 255
                face.color.blue += 0.04 * Double(tint.blue) / 255
            }
            if !repeatFrames { hash += 1 }
            return LivenessFrame(timestampMs: clock, faces: [face], contentHash: hash)
        }
        for _ in 0..<400 where !session.finished {
            var subject = person
            var tint: ReflectionColor?
            if let start = session.reflectionStartMs, let sequence = session.plan.reflection {
                let step = (clock - start - 100) / sequence.stepMs
                if clock - start >= 100, step < sequence.colors.count { tint = sequence.colors[step] }
            } else if let current = session.tracker.challenges.firstIndex(where: { $0.state == .active }) {
                if current != index { index = current; motionFrame = nil }
                let since = clock - session.tracker.challenges[current].promptedAtMs!
                if since >= 500 {
                    motionFrame = (motionFrame ?? -1) + 1
                    subject = person.performing(session.tracker.challenges[current].kind, min(1, Double(motionFrame!) / 10))
                }
            }
            let next = frame(subject, tint: tint)
            let wants = session.wantsDescriptor(for: next)
            _ = session.observe(next, descriptor: wants ? FaceDescriptor([Float](repeating: 0.05, count: 128)) : nil)
            if session.reflectionDue { session.startReflection(atMs: clock + 100) }
            clock += 100
        }
        return session.decide()
    }

    @Test func aCooperatingPersonPassesAMediumSession() throws {
        let policy = try LivenessPolicy.preset(.medium).validated()
        var generator = PlanGenerator.seeded(9)
        var passes = 0
        for _ in 0..<10 {
            var session = LivenessSession(policy: policy, plan: ChallengePlanner.plan(for: policy, using: &generator))
            let decision = Self.run(&session, person: Subject())
            if decision.outcome == .passed { passes += 1 } else { Issue.record("\(decision.feedback) \(decision.checks)") }
        }
        #expect(passes == 10)
    }

    @Test func theAuditFrameIsWellPlacedFrontalAndOpenEyed() throws {
        let policy = try LivenessPolicy.preset(.free).validated()
        var generator = PlanGenerator.seeded(12)
        var session = LivenessSession(policy: policy, plan: ChallengePlanner.plan(for: policy, using: &generator))
        var turned = Subject(), shut = Subject(), far = Subject(), frontal = Subject()
        turned.yaw = 25
        shut.eyes = 0.05
        far.size = 0.1
        frontal.yaw = 0
        frontal.pitch = 0
        for (t, subject) in [turned, shut, far, frontal, turned].enumerated() {
            _ = session.observe(LivenessFrame(timestampMs: t * 100, faces: [subject.observation()], contentHash: UInt64(t)))
        }
        #expect(session.bestFrame?.timestampMs == 300)
    }

    @Test func repeatedFramesFailAsADeviceIssue() throws {
        let policy = try LivenessPolicy.preset(.low).validated()
        var generator = PlanGenerator.seeded(10)
        var session = LivenessSession(policy: policy, plan: ChallengePlanner.plan(for: policy, using: &generator))
        let decision = Self.run(&session, person: Subject(), repeatFrames: true)
        #expect(decision.outcome == .failed)
        #expect(decision.checks["frameTiming"]?.passed == false && decision.feedback.contains(.deviceIssue))
    }

    @Test func aSessionWithoutTheReflectionShownFails() throws {
        let policy = try LivenessPolicy.preset(.medium).validated()
        var generator = PlanGenerator.seeded(11)
        var session = LivenessSession(policy: policy, plan: ChallengePlanner.plan(for: policy, using: &generator))
        _ = session.observe(LivenessFrame(timestampMs: 0, faces: [Subject().observation()], contentHash: 1))
        #expect(session.decide().outcome == .failed)
        #expect(session.decide().checks["reflection"]?.reason == "reflection_not_shown")
    }
}
