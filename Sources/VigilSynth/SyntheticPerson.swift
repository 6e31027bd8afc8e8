import Foundation
import VigilCore
import VigilLiveness

/// A synthetic person in front of the camera, rendered from a photo's `FaceRig`.
///
/// A cooperating person reads each prompt, reacts after a human delay and performs the motion with
/// natural timing, and does it again, a little larger, while the prompt stays up; all the while the head drifts a little, the eyes blink now and then, and the
/// skin reflects the screen's colour. The same machinery, with the prompts ignored and a fixed loop
/// of every motion, is the replayed-video attack; with a second rig it is the face swap.
public struct SyntheticPerson: SyntheticCamera {
    /// How the person decides what to do.
    public enum Behaviour: Sendable {
        /// Performs each challenge after it is shown.
        case follows
        /// Performs every motion in a fixed loop from the start, whatever the screen says (a video
        /// recorded earlier).
        case loop
    }

    /// How the skin responds to the screen's colour.
    public enum LightResponse: Sendable {
        /// Live skin: tinted by what the screen shows now, at `strength`.
        case live(strength: Double)
        /// No response at all (an injected or replayed face lit by something else).
        case none
        /// Tinted by another sequence than the one on screen (a recording of another session).
        case other(ReflectionSequence, startMs: Int, strength: Double)
    }

    private var rig: FaceRig
    private let swap: (rig: FaceRig, delayMs: Int)?
    private let behaviour: Behaviour
    private let light: LightResponse
    private var random: SynthRandom
    private var motions: [PerformedMotion] = []
    private var seenPrompts: Set<Int> = []
    private var retry: (index: Int, atMs: Int, count: Int)?   // the next try at the prompt still shown
    /// Tries at one prompt, the first included, before the person gives up.
    static let maxTries = 3
    private var swapAtMs: Int?
    private var nextBlinkMs: Int
    private var drift = FaceState()
    private var lastMs: Int?

    /// A person made from `rig`. `swapTo` replaces the face `delayMs` after the first prompt shows.
    public init(rig: FaceRig, behaviour: Behaviour = .follows, light: LightResponse, swapTo: (rig: FaceRig, delayMs: Int)? = nil,
                seed: UInt64) {
        self.rig = rig
        self.swap = swapTo
        self.behaviour = behaviour
        self.light = light
        random = SynthRandom(seed: seed)
        nextBlinkMs = Int(random.uniform(1500...4000))
        if behaviour == .loop { motions = Self.loopScript(using: &random) }
    }

    /// Every motion, over and over, starting at a random point of the loop.
    private static func loopScript(using random: inout SynthRandom) -> [PerformedMotion] {
        var out: [PerformedMotion] = []
        var t = Int(random.uniform(0...1500))
        let order: [Motion] = [.blink, .mouthOpen, .turnLeft, .turnRight, .nod, .shake]
        var k = Int(random.uniform(0...5.99))
        while t < 70_000 {
            let motion = PerformedMotion.natural(order[k % order.count], at: t, using: &random)
            out.append(motion)
            t = motion.endMs + Int(random.uniform(400...900))
            k += 1
        }
        return out
    }

    public mutating func frame(at timestampMs: Int, screen: ScreenState) -> PixelBuffer {
        let dt = Double(timestampMs - (lastMs ?? timestampMs)) / 1000
        lastMs = timestampMs
        if behaviour == .follows, let prompt = screen.prompt, !seenPrompts.contains(prompt.index) {
            seenPrompts.insert(prompt.index)
            let reaction = Int(random.uniform(350...900))
            let start = max(prompt.shownAtMs + reaction, (motions.last?.endMs ?? 0) + 100)
            let motion = PerformedMotion.natural(prompt.kind, at: start, using: &random)
            motions.append(motion)
            retry = (prompt.index, motion.endMs + Int(random.uniform(700...1400)), 1)
            if let swap, swapAtMs == nil { swapAtMs = prompt.shownAtMs + swap.delayMs }
        } else if behaviour == .follows, let prompt = screen.prompt, let next = retry, next.index == prompt.index,
                  next.count < Self.maxTries, timestampMs >= next.atMs {
            // Still asked after doing it: people do it again, more clearly.
            var motion = PerformedMotion.natural(prompt.kind, at: timestampMs, using: &random)
            if prompt.kind != .blink && prompt.kind != .mouthOpen { motion.amplitude *= 1.2 }
            motion.holdMs += 100
            motions.append(motion)
            retry = (prompt.index, motion.endMs + Int(random.uniform(700...1400)), next.count + 1)
        }
        if let at = swapAtMs, timestampMs >= at, let swap {
            rig = swap.rig
            swapAtMs = Int.max
        }
        if timestampMs >= nextBlinkMs {
            // Natural blinks, but not in the middle of a deliberate motion.
            if !motions.contains(where: { $0.startMs <= timestampMs + 400 && $0.endMs >= timestampMs }) {
                motions.append(.involuntaryBlink(at: timestampMs, using: &random))
            }
            nextBlinkMs = timestampMs + Int(random.uniform(2500...6000))
        }

        // Involuntary motion: a slow wander of the head back towards rest (an Ornstein-Uhlenbeck
        // process, returning at 1.5 a second), stepped exactly: however far apart two frames are,
        // the head strays no further than its resting spread, sigma / sqrt(3). (Stepped as
        // `-value * dt * 1.5` plus noise growing with the square root of dt, a frame seconds after
        // the last, as on a loaded server, drew the head several degrees off at random.)
        let decay = exp(-1.5 * dt)
        func wander(_ value: inout Double, sigma: Double) {
            value = value * decay + random.gaussian(sigma * ((1 - decay * decay) / 3).squareRoot())
        }
        wander(&drift.yaw, sigma: 2.0)
        wander(&drift.pitch, sigma: 1.5)
        wander(&drift.roll, sigma: 1.0)
        wander(&drift.dx, sigma: 4)
        wander(&drift.dy, sigma: 3)
        var state = drift
        state.scale = 1 + drift.dy * 0.002
        motions.removeAll { $0.endMs < timestampMs - 1000 }
        for motion in motions { motion.apply(at: timestampMs, to: &state) }

        var (frame, points) = rig.render(state)
        let shown: (red: Double, green: Double, blue: Double)
        let strength: Double
        switch light {
        case .live(let s):
            shown = screen.color
            strength = s
        case .none:
            shown = (1, 1, 1)
            strength = 0
        case .other(let sequence, let start, let s):
            let step = (timestampMs - start) / sequence.stepMs
            if timestampMs >= start, step < sequence.colors.count {
                let c = sequence.colors[step]
                shown = (Double(c.red) / 255, Double(c.green) / 255, Double(c.blue) / 255)
            } else {
                shown = (1, 1, 1)
            }
            strength = s
        }
        let face = Array(points[0..<68])
        let xs = face.map(\.x), ys = face.map(\.y)
        let centre = Point2D(x: (xs.min()! + xs.max()!) / 2, y: (ys.min()! + ys.max()!) / 2 - rig.interocular * 0.3)
        ScreenLight(color: shown, strength: strength)
            .apply(to: &frame, face: centre, radii: ((xs.max()! - xs.min()!) * 0.6, (ys.max()! - ys.min()!) * 0.75))
        return frame
    }
}
