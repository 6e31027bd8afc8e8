import Foundation
import Testing
import VigilCore

@Suite struct LivenessPolicyTests {
    @Test func raisingAPolicyMakesItOneStepStricterUntilNothingIsLeft() throws {
        #expect(LivenessPolicy.preset(.low).raised() == .preset(.medium))
        var policy = LivenessPolicy.preset(.free)
        var steps = 0
        while let stricter = policy.raised() {
            #expect(try stricter.validated() == stricter)
            #expect(stricter.count >= policy.count && (stricter.type == .both || stricter.type == policy.type))
            policy = stricter
            steps += 1
        }
        // Reflection, strict reflection, then motions up to all six.
        #expect(steps == 2 + 5 && policy.count == Motion.allCases.count && policy.reflectionStrict)
        #expect(LivenessPolicy(count: 0, type: .reflection).raised()?.type == .both)
        #expect(LivenessPolicy(motions: [], count: 0, type: .reflection).raised()?.reflectionStrict == true)
    }

    @Test(arguments: RiskLevel.allCases) func everyPresetIsValid(_ level: RiskLevel) throws {
        _ = try LivenessPolicy.preset(level).validated()
    }

    @Test func presetsMatchTheDocumentedDefaults() {
        #expect(LivenessPolicy.preset(.free).count == 1 && LivenessPolicy.preset(.free).type == .motion)
        #expect(LivenessPolicy.preset(.low).count == 2 && LivenessPolicy.preset(.low).type == .motion)
        #expect(LivenessPolicy.preset(.medium).count == 2 && LivenessPolicy.preset(.medium).type == .both)
        let high = LivenessPolicy.preset(.high)
        #expect(high.count == 3 && high.type == .both && high.reflectionStrict && high.fixed == [.blink])
        for level in RiskLevel.allCases {
            let policy = LivenessPolicy.preset(level)
            #expect(policy.challengeTimeout == 10 && policy.maxAttempts == 3 && policy.motions == Motion.allCases)
        }
    }

    static let invalid: [(LivenessPolicy, String)] = [
        (LivenessPolicy(count: 1, challengeTimeout: 4.9), "challengeTimeout"),
        (LivenessPolicy(count: 1, challengeTimeout: 61), "challengeTimeout"),
        (LivenessPolicy(count: 1, maxAttempts: 0), "maxAttempts"),
        (LivenessPolicy(count: 1, maxAttempts: 101), "maxAttempts"),
        (LivenessPolicy(motions: [.blink, .blink], count: 1), "motions"),
        (LivenessPolicy(motions: [], count: 1), "motions"),
        (LivenessPolicy(motions: [.blink, .nod], count: 3), "count"),
        (LivenessPolicy(count: 0), "count"),
        (LivenessPolicy(motions: [.nod], count: 1, fixed: [.blink]), "fixed"),
        (LivenessPolicy(count: 1, fixed: [.blink, .nod]), "fixed"),
        (LivenessPolicy(count: 2, type: .reflection), "count"),
    ]

    @Test(arguments: invalid) func outOfRangeFieldsAreNamedNotClamped(_ policy: LivenessPolicy, _ field: String) {
        do {
            _ = try policy.validated()
            Issue.record("accepted an invalid \(field)")
        } catch {
            #expect(error.field == field, "\(error)")
        }
    }

    @Test func boundaryValuesAreAccepted() throws {
        _ = try LivenessPolicy(count: 6, challengeTimeout: 5, maxAttempts: 1).validated()
        _ = try LivenessPolicy(count: 1, challengeTimeout: 60, maxAttempts: 100).validated()
        _ = try LivenessPolicy(count: 0, type: .reflection).validated()
    }

    @Test func decodesWithDefaultsAndRequiresCount() throws {
        let policy = try JSONDecoder().decode(LivenessPolicy.self, from: Data(#"{"count": 2, "motions": ["blink", "nod"]}"#.utf8))
        #expect(policy == LivenessPolicy(motions: [.blink, .nod], count: 2))
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(LivenessPolicy.self, from: Data(#"{"motions": ["blink"]}"#.utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(LivenessPolicy.self, from: Data(#"{"count": 1, "motions": ["wink"]}"#.utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(LivenessPolicy.self, from: Data(#"{"count": "1"}"#.utf8)) }
    }

    @Test func encodingRoundTrips() throws {
        let policy = LivenessPolicy.preset(.high)
        #expect(try JSONDecoder().decode(LivenessPolicy.self, from: JSONEncoder().encode(policy)) == policy)
    }
}
