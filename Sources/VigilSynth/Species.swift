import VigilCore
import VigilFace
import VigilLiveness

/// What is in front of the camera in a synthetic session: a cooperating person, or an attack.
/// None of the attacks knows the plan.
public enum Species: String, CaseIterable, Sendable, Codable {
    /// A cooperating person following the prompts; the skin reflects the screen.
    case live
    /// A printed photo moved by hand.
    case photoPrint
    /// A printed photo tilted about both axes to fake turns and nods.
    case photoTilted
    /// A printed photo bent and flexed.
    case photoBent
    /// The photo shown on a screen (pixel grid, gamma), held and tilted.
    case screenReplay
    /// A recorded video of the person performing every motion in a fixed loop.
    case videoLoop
    /// The same loop injected by a client that tints it with the screen's colours as they show.
    case videoLoopLit
    /// A live-following face that changes to someone else after the first prompt.
    case faceSwap
    /// A live-following feed in which frames repeat (frozen or looped injection).
    case duplicatedFrames
    /// A live-following feed whose frames arrive out of order.
    case reorderedFrames
    /// A live-following face whose light ignores the screen (injected, or recorded under another
    /// colour sequence).
    case reflectionIgnored

    /// Whether this is an attack.
    public var isAttack: Bool { self != .live }

    /// Runs one session of this species with the subject `rig` (and `other` for a face swap)
    /// under `policy`, seen through `camera`; everything random follows from `seed`.
    public func simulate(rig: FaceRig, other: FaceRig, policy: LivenessPolicy, analyzer: some FaceAnalyzing, camera: CameraConditions = CameraConditions(),
                         seed: UInt64) -> SimulatedSession {
        var random = SynthRandom(seed: seed)
        var planSeed = [UInt8](repeating: 0, count: 32)
        for i in 0..<32 { planSeed[i] = UInt8(truncatingIfNeeded: random.next()) }
        var generator = PlanGenerator(seed: planSeed)
        let plan = ChallengePlanner.plan(for: policy, using: &generator)
        var settings = CaptureSettings()
        settings.noise = random.uniform(1.2...3.0)
        settings.camera = camera
        settings.maxDurationMs = Int(policy.challengeTimeout * 1000) * max(policy.count, 1) + 20_000
        let strength = random.uniform(0.12...0.25)
        let personSeed = random.next(), runSeed = random.next()

        func run(_ camera: inout some SyntheticCamera) -> SimulatedSession {
            SessionSimulator.run(policy: policy, plan: plan, camera: &camera, analyzer: analyzer, settings: settings, seed: runSeed)
        }
        switch self {
        case .live:
            var person = SyntheticPerson(rig: rig, light: .live(strength: strength), seed: personSeed)
            return run(&person)
        case .photoPrint, .photoTilted, .photoBent, .screenReplay:
            var attack = PhotoAttack(rig: rig, medium: PhotoAttack.Medium(self) ?? .screen, seed: personSeed)
            return run(&attack)
        case .videoLoop, .videoLoopLit:
            var video = SyntheticPerson(rig: rig, behaviour: .loop, light: self == .videoLoop ? .none : .live(strength: strength), seed: personSeed)
            return run(&video)
        case .faceSwap:
            var person = SyntheticPerson(rig: rig, light: .live(strength: strength), swapTo: (other, Int(random.uniform(200...900))), seed: personSeed)
            return run(&person)
        case .duplicatedFrames:
            settings.tamper = .duplicate(every: Int(random.uniform(3...6.99)))
            var person = SyntheticPerson(rig: rig, light: .live(strength: strength), seed: personSeed)
            return run(&person)
        case .reorderedFrames:
            settings.tamper = .reorder(every: Int(random.uniform(6...15.99)))
            var person = SyntheticPerson(rig: rig, light: .live(strength: strength), seed: personSeed)
            return run(&person)
        case .reflectionIgnored:
            let light: SyntheticPerson.LightResponse
            if random.uniform(0...1) < 0.5 {
                light = .none
            } else {
                // Lit by another session's sequence, recorded earlier.
                var other = PlanGenerator(seed: [UInt8](repeating: UInt8(truncatingIfNeeded: random.next()), count: 32))
                let decoy = ChallengePlanner.plan(for: LivenessPolicy.preset(.high), using: &other).reflection!
                light = .other(decoy, startMs: Int(random.uniform(1000...6000)), strength: strength)
            }
            var person = SyntheticPerson(rig: rig, light: light, seed: personSeed)
            return run(&person)
        }
    }
}
