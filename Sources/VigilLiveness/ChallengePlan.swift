import VigilCore

/// An sRGB colour flashed by the capture page during a reflection challenge.
public struct ReflectionColor: Codable, Hashable, Sendable, CustomStringConvertible {
    /// Red, 0-255.
    public let red: UInt8
    /// Green, 0-255.
    public let green: UInt8
    /// Blue, 0-255.
    public let blue: UInt8

    /// Creates a colour.
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// Parses `#rrggbb`.
    public init?(hex: String) {
        guard hex.count == 7, hex.first == "#", let value = UInt32(hex.dropFirst(), radix: 16) else { return nil }
        self.init(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
    }

    /// `#rrggbb`.
    public var description: String {
        "#" + [red, green, blue].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let colour = ReflectionColor(hex: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "expected #rrggbb, got \(text)"))
        }
        self = colour
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// Saturated colours whose chroma differ clearly on skin.
    public static let palette: [ReflectionColor] = ["#ff0000", "#00ff00", "#0000ff", "#ffff00", "#ff00ff", "#00ffff"]
        .compactMap(ReflectionColor.init(hex:))
}

/// The colours of a reflection challenge, each shown for `stepMs` milliseconds.
public struct ReflectionSequence: Codable, Hashable, Sendable {
    /// Colours in display order; no colour follows itself.
    public let colors: [ReflectionColor]
    /// Display time of each colour. At least 334 ms keeps flashes within three per second (WCAG 2.3.1).
    public let stepMs: Int
    /// Accepted colour counts and step durations for sequences from outside the planner.
    public static let limits = (colors: 1...32, stepMs: 100...5000)

    /// Creates a sequence.
    public init(colors: [ReflectionColor], stepMs: Int) {
        self.colors = colors
        self.stepMs = stepMs
    }
}

/// What a session will ask for, drawn per session by `ChallengePlanner`.
public struct ChallengePlan: Codable, Hashable, Sendable {
    /// Motion challenges, revealed one at a time in this order.
    public let motions: [Motion]
    /// Per challenge, how long a neutral face is held before it is revealed (ms). Drawn at random
    /// so a recording cannot know when the next prompt comes; moving meanwhile fails the session.
    public let holdMs: [Int]
    /// The reflection sequence, when the policy asks for one.
    public let reflection: ReflectionSequence?

    /// Creates a plan (the planner draws one; recorded sessions are replayed from theirs).
    public init(motions: [Motion], holdMs: [Int], reflection: ReflectionSequence?) {
        self.motions = motions
        self.holdMs = holdMs
        self.reflection = reflection
    }
}

/// Draws the order of challenges and the reflection colours of a session.
public enum ChallengePlanner {
    /// Flash duration: two colours per second, under WCAG's three-flashes-per-second limit.
    public static let reflectionStepMs = 500
    /// Range of the neutral hold before each challenge is revealed (ms).
    public static let holdRangeMs = 500...1500
    /// Colours in a normal and a strict reflection sequence. With five, a recording lit by another
    /// session's sequence matched the drawn one in 2 of 50 synthetic attacks; seven make such a
    /// chance match rarer for 1 s more.
    public static let reflectionSteps = (normal: 7, strict: 8)

    /// A plan for a validated policy: fixed motions plus random others, in random order.
    public static func plan(for policy: LivenessPolicy, using generator: inout PlanGenerator) -> ChallengePlan {
        var motions: [Motion] = []
        if policy.type.includesMotion {
            let optional = policy.motions.filter { !policy.fixed.contains($0) }.shuffled(using: &generator)
            motions = (policy.fixed + optional.prefix(max(0, policy.count - policy.fixed.count))).shuffled(using: &generator)
        }
        var reflection: ReflectionSequence?
        if policy.type.includesReflection {
            let steps = policy.reflectionStrict ? reflectionSteps.strict : reflectionSteps.normal
            var colors: [ReflectionColor] = []
            while colors.count < steps {
                let next = ReflectionColor.palette.randomElement(using: &generator)!
                if next != colors.last { colors.append(next) }
            }
            reflection = ReflectionSequence(colors: colors, stepMs: reflectionStepMs)
        }
        let holds = motions.map { _ in Int.random(in: holdRangeMs, using: &generator) }
        return ChallengePlan(motions: motions, holdMs: holds, reflection: reflection)
    }
}
