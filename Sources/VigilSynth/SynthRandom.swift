import VigilCore

/// A fast seeded generator for rendering (noise, jitter, timing). Not for anything secret: plans
/// come from `PlanGenerator`; this only has to be reproducible.
public struct SynthRandom: RandomNumberGenerator, Sendable {
    private var generator: SplitMix64

    /// A generator whose whole output is fixed by `seed`.
    public init(seed: UInt64) { generator = SplitMix64(state: seed) }

    public mutating func next() -> UInt64 { generator.next() }

    /// Uniform in `range`.
    public mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        Double.random(in: range, using: &self)
    }

    /// Approximately normal with mean 0 and deviation `sigma` (sum of four uniforms, cheap enough
    /// for per-pixel noise).
    public mutating func gaussian(_ sigma: Double) -> Double {
        let bits = next()
        var sum = 0.0
        for k in 0..<4 { sum += Double((bits >> (16 * UInt64(k))) & 0xFFFF) }
        // Four uniforms on [0, 65535]: mean 131070, variance 4 * 65536² / 12.
        return (sum - 131_070) / 37_837.3 * sigma
    }

    /// A child generator for an independent stream (per frame, per attack part).
    public mutating func fork() -> SynthRandom { SynthRandom(seed: next()) }
}
