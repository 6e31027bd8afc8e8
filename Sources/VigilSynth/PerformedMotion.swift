import Foundation
import VigilCore

/// One motion as a person performs it: when it starts, how far it goes, and how long it takes.
public struct PerformedMotion: Sendable, Hashable {
    /// The motion.
    public var kind: Motion
    /// Start on the capture clock (ms).
    public var startMs: Int
    /// Peak: degrees for head motions, 0...1 for eyes and mouth.
    public var amplitude: Double
    /// Time to reach the peak, time held there, time to return (ms).
    public var riseMs: Int, holdMs: Int, fallMs: Int

    /// When the motion is over.
    public var endMs: Int { startMs + riseMs + holdMs + fallMs }

    /// A natural performance of `kind` starting at `startMs`, drawn from `random`.
    public static func natural(_ kind: Motion, at startMs: Int, using random: inout SynthRandom) -> PerformedMotion {
        func ms(_ r: ClosedRange<Double>) -> Int { Int(random.uniform(r)) }
        switch kind {
        case .blink:
            return PerformedMotion(kind: kind, startMs: startMs, amplitude: 1, riseMs: ms(80...130), holdMs: ms(220...400), fallMs: ms(100...160))
        case .mouthOpen:
            return PerformedMotion(kind: kind, startMs: startMs, amplitude: random.uniform(0.8...1), riseMs: ms(250...400),
                                   holdMs: ms(500...900), fallMs: ms(250...400))
        case .turnLeft, .turnRight:
            return PerformedMotion(kind: kind, startMs: startMs, amplitude: random.uniform(28...36), riseMs: ms(400...650),
                                   holdMs: ms(350...700), fallMs: ms(400...650))
        case .nod:
            return PerformedMotion(kind: kind, startMs: startMs, amplitude: random.uniform(20...30), riseMs: ms(300...500),
                                   holdMs: ms(250...500), fallMs: ms(300...500))
        case .shake:
            // One full cycle, left then right (or the other way), in riseMs + fallMs.
            return PerformedMotion(kind: kind, startMs: startMs, amplitude: random.uniform(24...32) * (random.uniform(0...1) < 0.5 ? 1 : -1),
                                   riseMs: ms(700...900), holdMs: 0, fallMs: ms(700...900))
        }
    }

    /// A natural, involuntary blink.
    public static func involuntaryBlink(at startMs: Int, using random: inout SynthRandom) -> PerformedMotion {
        PerformedMotion(kind: .blink, startMs: startMs, amplitude: 1, riseMs: Int(random.uniform(60...90)), holdMs: Int(random.uniform(60...120)),
                        fallMs: Int(random.uniform(80...120)))
    }

    /// Adds this motion's contribution at `timestampMs` to `state`.
    public func apply(at timestampMs: Int, to state: inout FaceState) {
        let t = timestampMs - startMs
        guard t >= 0, timestampMs < endMs else { return }
        if kind == .shake {
            let phase = Double(t) / Double(riseMs + fallMs)
            state.yaw += amplitude * sin(2 * Double.pi * phase) * sin(Double.pi * phase).squareRoot()
            return
        }
        let envelope: Double
        if t < riseMs {
            envelope = Self.ease(Double(t) / Double(max(riseMs, 1)))
        } else if t < riseMs + holdMs {
            envelope = 1
        } else {
            envelope = 1 - Self.ease(Double(t - riseMs - holdMs) / Double(max(fallMs, 1)))
        }
        let v = amplitude * envelope
        switch kind {
        case .blink: state.eyesClosed = max(state.eyesClosed, v)
        case .mouthOpen: state.jawOpen = max(state.jawOpen, v)
        case .turnLeft: state.yaw += v
        case .turnRight: state.yaw -= v
        case .nod: state.pitch -= v
        case .shake: break
        }
    }

    private static func ease(_ x: Double) -> Double {
        let c = min(max(x, 0), 1)
        return c * c * (3 - 2 * c)
    }
}
