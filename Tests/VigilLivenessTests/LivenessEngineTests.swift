import Foundation
import Testing
import VigilCore
import VigilFace
@testable import VigilLiveness

@Suite struct LivenessEngineTests {
    /// A cooperating subject: holds still until prompted, performs each motion, then looks at the
    /// flashing screen, whose light tints the face.
    /// With `reload`, the engine is encoded and decoded after every frame, as a server stores it.
    /// Frames come every `intervalMs` of the capture clock.
    static func run(_ engine: inout LivenessEngine, person: Subject, intervalMs: Int = 100, repeatFrames: Bool = false, reload: Bool = false,
                    descriptor: (LivenessEngine) -> FaceDescriptor = { _ in FaceDescriptor([Float](repeating: 0.05, count: 128)) },
                    sampled: (LivenessFrame) -> Void = { _ in },
                    whileColoursShow: (Subject, _ sinceStartMs: Int) -> Subject = { person, _ in person }) -> LivenessDecision {
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
        for _ in 0..<400 where !engine.finished {
            var subject = person
            var tint: ReflectionColor?
            if let start = engine.reflectionStartMs, let sequence = engine.reflectionSequence {
                let step = (clock - start - 100) / sequence.stepMs
                if clock - start >= 100, step < sequence.colors.count { tint = sequence.colors[step] }
                subject = whileColoursShow(person, clock - start)
            } else if let current = engine.tracker.challenges.firstIndex(where: { $0.state == .active }) {
                if current != index { index = current; motionFrame = nil }
                let since = clock - engine.tracker.challenges[current].promptedAtMs!
                if since >= 500 {
                    motionFrame = (motionFrame ?? -1) + 1
                    subject = person.performing(engine.tracker.challenges[current].kind, min(1, Double(motionFrame!) / 10))
                }
            }
            let next = frame(subject, tint: tint)
            let wants = engine.wantsDescriptor(for: next)
            if wants { sampled(next) }
            _ = engine.observe(next, descriptor: wants ? descriptor(engine) : nil)
            if engine.reflectionDue { engine.startReflection(atMs: clock + 100) }
            if reload { engine = try! JSONDecoder().decode(LivenessEngine.self, from: JSONEncoder().encode(engine)) }
            clock += intervalMs
        }
        return engine.decide()
    }

    @Test func aCooperatingPersonPassesAMediumAttempt() throws {
        let policy = try LivenessPolicy.preset(.medium).validated()
        var generator = PlanGenerator.seeded(9)
        var passes = 0
        for _ in 0..<10 {
            var engine = LivenessEngine(policy: policy, plan: ChallengePlanner.plan(for: policy, using: &generator))
            let decision = Self.run(&engine, person: Subject())
            if decision.outcome == .passed { passes += 1 } else { Issue.record("\(decision.feedback) \(decision.checks)") }
        }
        #expect(passes == 10)
    }

    /// A plan without the reflection its policy asks for (a hand-made session file) never passes,
    /// however well the person does the motions.
    @Test func aPlanMissingItsPolicysReflectionFails() throws {
        let policy = try LivenessPolicy.preset(.medium).validated()
        #expect(policy.type.includesReflection)
        var generator = PlanGenerator.seeded(9)
        let planned = ChallengePlanner.plan(for: policy, using: &generator)
        var engine = LivenessEngine(policy: policy, plan: ChallengePlan(motions: planned.motions, holdMs: planned.holdMs, reflection: nil))
        let decision = Self.run(&engine, person: Subject())
        #expect(decision.outcome == .failed && decision.checks["reflection"]?.reason == "reflection_not_planned")
    }

    /// A head turned or bowed while the colours show fails: a recording tinted with the colours
    /// as they show still turns and nods on its own schedule. A head that wanders a few degrees
    /// does not.
    @Test func aHeadThatTurnsOrNodsWhileTheColoursShowFails() throws {
        let policy = try LivenessPolicy.preset(.medium).validated()
        var generator = PlanGenerator.seeded(41)
        let plan = ChallengePlanner.plan(for: policy, using: &generator)
        func run(_ move: @escaping (inout Subject, Double) -> Void) -> LivenessDecision {
            var engine = LivenessEngine(policy: policy, plan: plan)
            return Self.run(&engine, person: Subject(), whileColoursShow: { person, since in
                var moved = person
                if (1000..<2000).contains(since) { move(&moved, sin(Double(since - 1000) / 1000 * .pi)) }
                return moved
            })
        }
        let turned = run { $0.yaw += 30 * $1 }, bowed = run { $0.pitch -= 20 * $1 }, wandered = run { $0.yaw += 4 * $1; $0.pitch -= 3 * $1 }
        for decision in [turned, bowed] {
            #expect(decision.outcome == .failed && decision.checks["stillness"]?.reason == "head_moved", "\(decision.checks)")
            #expect(decision.feedback.contains(.holdStill))
        }
        #expect(wandered.outcome == .passed, "\(wandered.checks)")
    }

    /// A turn passes half-way back; the colours wait for the head to reach neutral (their
    /// baseline is the frames before them), or a second at most.
    @Test func theColoursWaitForAHeadStillComingBackFromItsTurn() throws {
        let policy = try LivenessPolicy(motions: [.turnLeft], count: 1, type: .both, maxAttempts: 1).validated()
        var generator = PlanGenerator.seeded(42)
        func run(backTo rest: Double) -> (passedAt: Int, dueAt: Int?) {
            var engine = LivenessEngine(policy: policy, plan: ChallengePlanner.plan(for: policy, using: &generator))
            let person = Subject()
            var clock = 0, yaws: [Double] = []
            while clock < 8000, !engine.reflectionDue {
                var subject = person
                if let prompted = engine.tracker.challenges[0].promptedAtMs, clock - prompted >= 500 {
                    if yaws.isEmpty, !engine.tracker.passed { yaws = [8, 16, 24, 30, 30, 24, rest] }
                    subject.yaw += yaws.isEmpty ? rest : yaws.removeFirst()
                }
                _ = engine.observe(LivenessFrame(timestampMs: clock, faces: [subject.observation()], contentHash: UInt64(clock + 1)))
                clock += 100
            }
            return (engine.tracker.challenges[0].endedAtMs ?? -1, engine.reflectionDue ? clock - 100 : nil)
        }
        let halfWay = run(backTo: 14), neutral = run(backTo: 2)
        #expect(halfWay.passedAt > 0 && neutral.passedAt > 0)
        #expect(halfWay.dueAt == halfWay.passedAt + LivenessEngine.reflectionWaitForNeutralMs)
        #expect(neutral.dueAt == neutral.passedAt)
    }

    @Test func anEngineStoredAndReloadedAfterEveryFrameDecidesExactlyAlike() throws {
        let policy = try LivenessPolicy.preset(.high).validated()
        var generator = PlanGenerator.seeded(11)
        for _ in 0..<3 {
            let plan = ChallengePlanner.plan(for: policy, using: &generator)
            var kept = LivenessEngine(policy: policy, plan: plan), reloaded = kept
            let expected = Self.run(&kept, person: Subject())
            let decision = Self.run(&reloaded, person: Subject(), reload: true)
            #expect(expected.outcome == .passed)
            #expect(decision.outcome == expected.outcome && decision.score == expected.score && decision.feedback == expected.feedback)
            #expect(decision.checks == expected.checks && reloaded.frameCount == kept.frameCount)
        }
    }

    @Test func identityIsSampledThreeTimesOnRestingFacesOnly() throws {
        let policy = try LivenessPolicy.preset(.medium).validated()
        var generator = PlanGenerator.seeded(21)
        var engine = LivenessEngine(policy: policy, plan: ChallengePlanner.plan(for: policy, using: &generator))
        let person = Subject()
        var samples: [LivenessFrame] = []
        let decision = Self.run(&engine, person: person, sampled: { samples.append($0) })
        #expect(decision.outcome == .passed)
        #expect(samples.count == LivenessEngine.identitySamples)
        for frame in samples {
            let face = try #require(frame.faces.first)
            #expect(abs(face.pose.yaw - person.yaw) < 8 && abs(face.pose.pitch - person.pitch) < 8)
            #expect(abs(face.mouth - person.mouth) < 0.05 && face.eyes.left > person.eyes * 0.85 && face.eyes.right > person.eyes * 0.85)
        }
    }

    /// A one-mouthOpen engine in which the person does `after` to their face once the motion
    /// passed, and never rests again; returns the decision and how many identity samples it took.
    static func runOneMouthOpen(after: (Subject) -> Subject) throws -> (LivenessDecision, samples: Int) {
        let policy = try LivenessPolicy(motions: [.mouthOpen], count: 1, maxAttempts: 1).validated()
        var generator = PlanGenerator.seeded(31)
        var engine = LivenessEngine(policy: policy, plan: ChallengePlanner.plan(for: policy, using: &generator))
        let person = Subject()
        var samples = 0, clock = 0
        for _ in 0..<300 where !engine.finished {
            var subject = person
            if engine.tracker.passed {
                subject = after(person)
            } else if let prompted = engine.tracker.challenges[0].promptedAtMs, clock - prompted >= 400 {
                subject = person.performing(.mouthOpen, 0.5)
            }
            let frame = LivenessFrame(timestampMs: clock, faces: [subject.observation()], contentHash: UInt64(clock + 1))
            let wants = engine.wantsDescriptor(for: frame)
            if wants { samples += 1 }
            _ = engine.observe(frame, descriptor: wants ? FaceDescriptor([Float](repeating: 0.05, count: 128)) : nil)
            clock += 100
        }
        #expect(engine.finished)
        return (engine.decide(), samples)
    }

    /// Real people keep talking and hold a motion a while after it passed: identity is sampled on
    /// any frame facing the camera with open eyes, not only on a resting face.
    @Test func identityIsSampledOnAFaceThatNeverRestsAfterItsMotion() throws {
        let (decision, samples) = try Self.runOneMouthOpen { person in
            var lipsApartEyesRelaxed = person
            lipsApartEyesRelaxed.mouth += 0.12
            lipsApartEyesRelaxed.eyes *= 0.8
            return lipsApartEyesRelaxed
        }
        #expect(decision.outcome == .passed, "\(decision.checks)")
        #expect(samples == LivenessEngine.identitySamples)
    }

    /// A person who looks away once the motion passed leaves identity unproven; the guidance says
    /// to look at the camera and keep still, not that no face was found.
    @Test func aFaceThatNeverLooksBackIsAskedToHoldStillNotToShowAFace() throws {
        let (decision, samples) = try Self.runOneMouthOpen { person in
            var away = person
            away.yaw += 25
            return away
        }
        #expect(samples == 1)
        #expect(decision.outcome == .failed && decision.checks["identity"]?.reason == "too_few_samples")
        #expect(decision.feedback.contains(.holdStill) && !decision.feedback.contains(.faceNotFound), "\(decision.feedback)")
    }

    /// A challenge that timed out before the second sample was due says so; the identity check
    /// does not blame a missing face.
    @Test func aTimedOutChallengeIsNotReportedAsTooFewIdentitySamples() throws {
        let policy = try LivenessPolicy(motions: [.blink], count: 1, challengeTimeout: 5, maxAttempts: 1).validated()
        var generator = PlanGenerator.seeded(32)
        var engine = LivenessEngine(policy: policy, plan: ChallengePlanner.plan(for: policy, using: &generator))
        for t in 0..<100 where !engine.finished {
            let frame = LivenessFrame(timestampMs: t * 100, faces: [Subject().observation()], contentHash: UInt64(t + 1))
            _ = engine.observe(frame, descriptor: engine.wantsDescriptor(for: frame) ? FaceDescriptor([Float](repeating: 0.05, count: 128)) : nil)
        }
        let decision = engine.decide()
        #expect(decision.outcome == .failed && decision.reasons == ["blink:timeout"], "\(decision.reasons)")
        #expect(decision.checks["identity"]?.reason == "challenges_not_passed")
    }

    /// Descriptors move with the lips and the eyelids: a face with one eye half shut, or the
    /// mouth a little off its rest, is no identity sample.
    @Test func identityIsNotSampledOnOneShutEyeOrAMovedMouth() throws {
        var tracker = ChallengeTracker(plan: ChallengePlan(motions: [.nod], holdMs: [500], reflection: nil), policy: LivenessPolicy(count: 1))
        let person = Subject()
        for i in 0..<6 { _ = tracker.observe([person.observation()], at: i * 100) }
        try #require(tracker.baseline != nil)
        #expect(tracker.isResting(person.observation()))
        var wink = person.observation()
        wink.eyes = EyeOpenness(left: person.eyes, right: person.eyes * 0.75)   // both together still read as open
        #expect(!tracker.isResting(wink))
        var lips = person
        lips.mouth -= 0.07
        #expect(!tracker.isResting(lips.observation()))
    }

    @Test func aFaceSwappedInAfterTheLastChallengeIsCaught() throws {
        let policy = try LivenessPolicy.preset(.medium).validated()
        var generator = PlanGenerator.seeded(22)
        var engine = LivenessEngine(policy: policy, plan: ChallengePlanner.plan(for: policy, using: &generator))
        // Another person's descriptor from the moment the last motion passed.
        let decision = Self.run(&engine, person: Subject()) { engine in
            FaceDescriptor([engine.tracker.passed ? 0.9 : 0.05] + [Float](repeating: 0.05, count: 127))
        }
        #expect(decision.outcome == .failed)
        #expect(decision.checks["identity"]?.reason == "identity_changed")
    }

    @Test func theAuditFrameIsWellPlacedFrontalAndOpenEyed() throws {
        let policy = try LivenessPolicy.preset(.free).validated()
        var generator = PlanGenerator.seeded(12)
        var engine = LivenessEngine(policy: policy, plan: ChallengePlanner.plan(for: policy, using: &generator))
        var turned = Subject(), shut = Subject(), far = Subject(), frontal = Subject()
        turned.yaw = 25
        shut.eyes = 0.05
        far.size = 0.1
        frontal.yaw = 0
        frontal.pitch = 0
        for (t, subject) in [turned, shut, far, frontal, turned].enumerated() {
            _ = engine.observe(LivenessFrame(timestampMs: t * 100, faces: [subject.observation()], contentHash: UInt64(t)))
        }
        #expect(engine.bestFrame?.timestampMs == 300)
    }

    @Test func repeatedFramesFailAsADeviceIssue() throws {
        let policy = try LivenessPolicy.preset(.low).validated()
        var generator = PlanGenerator.seeded(10)
        var engine = LivenessEngine(policy: policy, plan: ChallengePlanner.plan(for: policy, using: &generator))
        let decision = Self.run(&engine, person: Subject(), repeatFrames: true)
        #expect(decision.outcome == .failed)
        #expect(decision.checks["frameTiming"]?.passed == false && decision.feedback.contains(.deviceIssue))
    }

    @Test func anAttemptWithoutTheReflectionShownFails() throws {
        let policy = try LivenessPolicy.preset(.medium).validated()
        var generator = PlanGenerator.seeded(11)
        var engine = LivenessEngine(policy: policy, plan: ChallengePlanner.plan(for: policy, using: &generator))
        _ = engine.observe(LivenessFrame(timestampMs: 0, faces: [Subject().observation()], contentHash: 1))
        #expect(engine.decide().outcome == .failed)
        #expect(engine.decide().checks["reflection"]?.reason == "reflection_not_shown")
    }
    /// Each colour shows for the plan's step while frames come at 5 a second or more, and longer
    /// when they come further apart (a server answering slowly), up to a second.
    @Test func theReflectionStepLengthensOnlyForFramesSlowerThanFiveASecond() {
        func step(every ms: Int) -> Int { LivenessEngine.reflectionStepMs(planned: 500, intervalsMs: [Int](repeating: ms, count: 8)) }
        #expect([33, 100, 133, 200].map(step) == [500, 500, 500, 500])
        #expect([250, 350, 400, 600, 3000].map(step) == [600, 800, 900, 1000, 1000])
        #expect(LivenessEngine.reflectionStepMs(planned: 500, intervalsMs: []) == 500)
        // The median: one stall does not stretch it.
        #expect(LivenessEngine.reflectionStepMs(planned: 500, intervalsMs: [100, 100, 100, 2000, 100]) == 500)
        #expect(LivenessEngine.reflectionStepMs(planned: 2000, intervalsMs: [350]) == 2000)
    }

    /// Frames every 350 ms: the sequence is shown, checked and timed with 800 ms steps, and the
    /// person passes; the step survives the engine being stored and reloaded.
    @Test func framesArrivingSlowlyGetLongerReflectionSteps() throws {
        let policy = try LivenessPolicy(count: 0, type: .reflection).validated()
        var generator = PlanGenerator.seeded(5)
        let plan = ChallengePlanner.plan(for: policy, using: &generator)
        var engine = LivenessEngine(policy: policy, plan: plan)
        let decision = Self.run(&engine, person: Subject(), intervalMs: 350, reload: true)
        #expect(engine.reflectionSequence?.stepMs == 800 && engine.reflectionSequence?.colors == plan.reflection?.colors)
        #expect(decision.outcome == .passed, "\(decision.checks)")
    }
}
