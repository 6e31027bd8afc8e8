import VigilCore
import VigilFace

/// Correlates the face's chroma, frame by frame, with the colour sequence the server drew and the
/// page flashed. Light from the screen tints a real face with each colour, a little after it is
/// shown; a recording made earlier follows some other sequence or none.
public struct ReflectionCheck: Codable, Sendable {
    /// Display-plus-camera latencies tried (ms); the best one is used.
    public static let lagsMs = [0, 100, 200, 300]
    /// Frames this soon after a colour change (ms) are in transition and skipped.
    public static let settleMs = 150

    private let sequence: ReflectionSequence
    private let startMs: Int
    private let minCorrelation: Double
    private let minResponse: Double
    private var baseline = ChromaMean()
    private var steps: [[ChromaMean]]   // [lag][step]

    /// A check for `sequence` shown from `startMs` on the capture clock.
    public init(sequence: ReflectionSequence, startMs: Int, strict: Bool = false) {
        self.sequence = sequence
        self.startMs = startMs
        minCorrelation = strict ? 0.7 : 0.6
        minResponse = strict ? 0.004 : 0.003
        steps = Self.lagsMs.map { _ in [ChromaMean](repeating: ChromaMean(), count: sequence.colors.count) }
    }

    /// Records one frame's face colour.
    public mutating func observe(_ color: FaceColor, at timestampMs: Int) {
        let chroma = Chroma(color)
        if timestampMs < startMs {
            baseline.add(chroma)
            return
        }
        for (l, lag) in Self.lagsMs.enumerated() {
            let offset = timestampMs - startMs - lag
            guard offset >= 0 else { continue }
            let step = offset / sequence.stepMs
            guard step < sequence.colors.count, offset % sequence.stepMs >= Self.settleMs else { continue }
            steps[l][step].add(chroma)
        }
    }

    /// The verdict: the best lag's mean cosine between expected and observed chroma changes.
    public var result: CheckResult {
        guard let reference = baseline.mean else {
            return CheckResult(passed: false, score: 0, feedback: .holdStill, reason: "no_frames_before_sequence")
        }
        let expected = sequence.colors.map { Chroma(FaceColor(red: Double($0.red) / 255, green: Double($0.green) / 255, blue: Double($0.blue) / 255)) }
        var best: (correlation: Double, response: Double, following: Int, steps: Int)?
        for lagSteps in steps {
            let observed = lagSteps.map { $0.mean.map { $0 - reference } }
            let pairs = zip(expected, observed).compactMap { e, o in o.map { (e, $0) } }
            guard pairs.count >= sequence.colors.count - 1 else { continue }
            // Remove what is common to all steps (white balance drift), then compare directions.
            let meanE = pairs.map(\.0).reduce(Chroma.zero, +) / Double(pairs.count)
            let meanO = pairs.map(\.1).reduce(Chroma.zero, +) / Double(pairs.count)
            let cosines = pairs.map { ($0.0 - meanE).cosine(with: $0.1 - meanO) }
            let correlation = cosines.reduce(0, +) / Double(cosines.count)
            let response = pairs.map { ($0.1 - meanO).length }.reduce(0, +) / Double(pairs.count)
            // Which palette colour each step's change points to most: skin lit by the drawn
            // sequence names almost every step; light from another sequence does not.
            let colours = ReflectionColor.palette + sequence.colors.filter { !ReflectionColor.palette.contains($0) }
            let candidates = colours.map { c in
                (c, Chroma(FaceColor(red: Double(c.red) / 255, green: Double(c.green) / 255, blue: Double(c.blue) / 255)) - meanE)
            }
            let shown = zip(sequence.colors, observed).compactMap { color, o in o.map { (color, $0) } }
            let following = shown.count { color, o in
                candidates.max { (o - meanO).cosine(with: $0.1) < (o - meanO).cosine(with: $1.1) }?.0 == color
            }
            if best == nil || correlation > best!.correlation { best = (correlation, response, following, cosines.count) }
        }
        guard let best else { return CheckResult(passed: false, score: 0, feedback: .holdStill, reason: "too_few_frames_in_sequence") }
        let score = (best.correlation + 1) / 2
        guard best.response >= minResponse else {
            return CheckResult(passed: false, score: score, feedback: .lightingIssue, reason: "no_measurable_reflection")
        }
        // A mean can hide steps that went another way (1 of 50 recordings of another sequence
        // passed on the mean alone): all steps but one must point to their own colour.
        guard best.correlation >= minCorrelation, best.following >= best.steps - 1 else {
            return CheckResult(passed: false, score: score, feedback: .lightingIssue, reason: "reflection_does_not_follow_sequence")
        }
        return CheckResult(passed: true, score: score)
    }
}

/// Normalised chromaticity: each channel over their sum.
struct Chroma: Codable, Sendable {
    var r: Double, g: Double, b: Double
    static let zero = Chroma(r: 0, g: 0, b: 0)

    init(r: Double, g: Double, b: Double) {
        self.r = r
        self.g = g
        self.b = b
    }

    init(_ c: FaceColor) {
        let sum = max(c.red + c.green + c.blue, 1e-6)
        self.init(r: c.red / sum, g: c.green / sum, b: c.blue / sum)
    }

    static func + (a: Chroma, b: Chroma) -> Chroma { Chroma(r: a.r + b.r, g: a.g + b.g, b: a.b + b.b) }
    static func - (a: Chroma, b: Chroma) -> Chroma { Chroma(r: a.r - b.r, g: a.g - b.g, b: a.b - b.b) }
    static func / (a: Chroma, k: Double) -> Chroma { Chroma(r: a.r / k, g: a.g / k, b: a.b / k) }
    var length: Double { (r * r + g * g + b * b).squareRoot() }
    func cosine(with o: Chroma) -> Double {
        let d = length * o.length
        return d > 1e-12 ? (r * o.r + g * o.g + b * o.b) / d : 0
    }
}

/// A running mean of chroma values.
struct ChromaMean: Codable, Sendable {
    private var sum = Chroma.zero
    private var count = 0
    mutating func add(_ c: Chroma) {
        sum = sum + c
        count += 1
    }
    var mean: Chroma? { count > 0 ? sum / Double(count) : nil }
}
