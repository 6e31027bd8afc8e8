import Foundation
import Testing
import VigilCore
import VigilFace
@testable import VigilLiveness

@Suite struct ReflectionCheckTests {
    static let skin = (r: 0.62, g: 0.46, b: 0.40)

    /// A face lit by the screen: each flashed colour adds a little of itself, `lagMs` late.
    static func run(_ check: inout ReflectionCheck, shown: ReflectionSequence, startMs: Int, lagMs: Int,
                    strength: Double, noise: inout PlanGenerator) {
        for t in stride(from: 0, to: startMs + shown.colors.count * shown.stepMs + 500, by: 100) {
            var r = skin.r, g = skin.g, b = skin.b
            let offset = t - startMs - lagMs
            if offset >= 0, offset / shown.stepMs < shown.colors.count {
                let c = shown.colors[offset / shown.stepMs]
                r += strength * Double(c.red) / 255
                g += strength * Double(c.green) / 255
                b += strength * Double(c.blue) / 255
            }
            r += noise.gaussian(0.002)
            g += noise.gaussian(0.002)
            b += noise.gaussian(0.002)
            check.observe(FaceColor(red: r, green: g, blue: b), at: t)
        }
    }

    static func sequence(_ generator: inout PlanGenerator, strict: Bool = false) throws -> ReflectionSequence {
        let policy = try LivenessPolicy(count: 0, type: .reflection, reflectionStrict: strict).validated()
        return try #require(ChallengePlanner.plan(for: policy, using: &generator).reflection)
    }

    @Test(arguments: [0, 120, 250]) func aFaceLitByTheDrawnSequencePasses(_ lagMs: Int) throws {
        var generator = PlanGenerator.seeded(1)
        for _ in 0..<20 {
            let drawn = try Self.sequence(&generator)
            var check = ReflectionCheck(sequence: drawn, startMs: 1000)
            Self.run(&check, shown: drawn, startMs: 1000, lagMs: lagMs, strength: 0.04, noise: &generator)
            #expect(check.result.passed, "\(check.result)")
        }
    }

    @Test func aRecordingOfAnotherSequenceFails() throws {
        var generator = PlanGenerator.seeded(2)
        var accepted = 0
        for _ in 0..<100 {
            let drawn = try Self.sequence(&generator, strict: true)
            let recorded = try Self.sequence(&generator, strict: true)
            guard recorded != drawn else { continue }
            var check = ReflectionCheck(sequence: drawn, startMs: 1000, strict: true)
            Self.run(&check, shown: recorded, startMs: 1000, lagMs: 100, strength: 0.04, noise: &generator)
            if check.result.passed { accepted += 1 }
        }
        #expect(accepted == 0)
    }

    @Test func aRecordingOfAnotherNormalSequenceFails() throws {
        var generator = PlanGenerator.seeded(5)
        var accepted = 0
        for _ in 0..<300 {
            let drawn = try Self.sequence(&generator), recorded = try Self.sequence(&generator)
            guard recorded != drawn else { continue }
            var check = ReflectionCheck(sequence: drawn, startMs: 1000)
            Self.run(&check, shown: recorded, startMs: 1000, lagMs: 100, strength: 0.04, noise: &generator)
            if check.result.passed { accepted += 1 }
        }
        #expect(accepted == 0)
    }

    @Test func aResponseThatMissesTwoStepsFailsEvenWithAHighMean() throws {
        var generator = PlanGenerator.seeded(6)
        let drawn = try Self.sequence(&generator)
        var wrong = drawn.colors
        for i in [1, 4] {
            wrong[i] = ReflectionColor.palette.first { $0 != drawn.colors[i] && $0 != drawn.colors[i - 1] && $0 != drawn.colors[i + 1] }!
        }
        var check = ReflectionCheck(sequence: drawn, startMs: 1000)
        Self.run(&check, shown: ReflectionSequence(colors: wrong, stepMs: drawn.stepMs), startMs: 1000, lagMs: 100, strength: 0.04, noise: &generator)
        #expect(!check.result.passed)
        #expect(check.result.reason == "reflection_does_not_follow_sequence")
    }

    @Test func noMeasurableResponseFailsAsALightingIssue() throws {
        var generator = PlanGenerator.seeded(3)
        let drawn = try Self.sequence(&generator)
        var check = ReflectionCheck(sequence: drawn, startMs: 1000)
        Self.run(&check, shown: drawn, startMs: 1000, lagMs: 100, strength: 0, noise: &generator)
        #expect(!check.result.passed && check.result.feedback == .lightingIssue)
    }

    @Test func framesMissingFromTheSequenceAreNotAPass() throws {
        var generator = PlanGenerator.seeded(4)
        let drawn = try Self.sequence(&generator)
        var check = ReflectionCheck(sequence: drawn, startMs: 1000)
        for t in stride(from: 0, to: 1000, by: 100) { check.observe(FaceColor(red: 0.6, green: 0.45, blue: 0.4), at: t) }
        #expect(!check.result.passed)
    }
}
