import Testing
import VigilCore
@testable import VigilLiveness

@Suite struct ChallengePlannerTests {
    static let seed = [UInt8](0..<32)

    @Test func generatorIsTheRFC8439ChaCha20Keystream() {
        // RFC 8439 section 2.3.2: key 00..1f, nonce 00:00:00:09:00:00:00:4a:00:00:00:00, counter 1.
        let nonce: [UInt8] = [0, 0, 0, 9, 0, 0, 0, 0x4A, 0, 0, 0, 0]
        let bytes = PlanGenerator.keystream(seed: Self.seed, nonce: nonce, counter: 1)
        let hex = bytes.prefix(16).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        #expect(hex == "10f1e7e4d13b5915500fdd1fa32071c4")
        var generator = PlanGenerator(seed: Self.seed, nonce: nonce, counter: 1)
        #expect(generator.next() == 0x1559_3BD1_E4E7_F110)
    }

    @Test func aFixedSeedGivesTheSamePlan() throws {
        let policy = try LivenessPolicy.preset(.high).validated()
        var a = PlanGenerator(seed: Self.seed), b = PlanGenerator(seed: Self.seed)
        #expect(ChallengePlanner.plan(for: policy, using: &a) == ChallengePlanner.plan(for: policy, using: &b))
    }

    @Test func systemSeededPlansVary() throws {
        let policy = try LivenessPolicy(count: 3).validated()
        var seen = Set<[Motion]>()
        for _ in 0..<50 {
            var generator = PlanGenerator.random()
            seen.insert(ChallengePlanner.plan(for: policy, using: &generator).motions)
        }
        // 120 possible ordered draws; 50 independent draws repeating into <= 10 would be astronomically unlikely.
        #expect(seen.count > 10)
    }

    @Test func plansHonourCountFixedAndAllowedMotions() throws {
        let policy = try LivenessPolicy(motions: [.blink, .nod, .shake, .turnLeft], count: 3, fixed: [.nod]).validated()
        var generator = PlanGenerator(seed: Self.seed)
        var firsts = Set<Motion>()
        for _ in 0..<200 {
            let plan = ChallengePlanner.plan(for: policy, using: &generator)
            #expect(plan.motions.count == 3 && Set(plan.motions).count == 3)
            #expect(plan.motions.contains(.nod))
            #expect(plan.motions.allSatisfy(policy.motions.contains))
            #expect(plan.reflection == nil)
            firsts.insert(plan.motions[0])
        }
        #expect(firsts.count == 4, "the fixed motion must not always come first")
    }

    @Test func reflectionSequencesAreWithinFlashLimitsAndNeverRepeatAColour() throws {
        for strict in [false, true] {
            let policy = try LivenessPolicy(count: 0, type: .reflection, reflectionStrict: strict).validated()
            var generator = PlanGenerator(seed: Self.seed)
            for _ in 0..<100 {
                let plan = ChallengePlanner.plan(for: policy, using: &generator)
                let sequence = try #require(plan.reflection)
                #expect(plan.motions.isEmpty)
                #expect(sequence.colors.count == (strict ? ChallengePlanner.reflectionSteps.strict : ChallengePlanner.reflectionSteps.normal))
                #expect(sequence.stepMs >= 334)
                #expect(zip(sequence.colors, sequence.colors.dropFirst()).allSatisfy { $0 != $1 })
            }
        }
    }

    @Test func coloursCodeAsHex() throws {
        #expect(ReflectionColor(hex: "#ff8000")?.description == "#ff8000")
        #expect(ReflectionColor(hex: "ff8000") == nil && ReflectionColor(hex: "#ff80zz") == nil && ReflectionColor(hex: "#fff") == nil)
    }
}
