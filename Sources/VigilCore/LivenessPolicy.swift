/// How much assurance a session needs; each level maps to a documented preset policy.
public enum RiskLevel: String, Codable, CaseIterable, Sendable {
    /// One motion challenge.
    case free
    /// Two motion challenges.
    case low
    /// Two motion challenges and a reflection sequence.
    case medium
    /// Three motion challenges (always a blink) and a strict reflection sequence.
    case high
}

/// A head or face motion the person is asked to perform, in the person's own frame.
public enum Motion: String, Codable, CaseIterable, Sendable {
    /// Close both eyes, then open them.
    case blink
    /// Open the mouth wide.
    case mouthOpen
    /// Turn the head to the person's own left, then back.
    case turnLeft
    /// Turn the head to the person's own right, then back.
    case turnRight
    /// Tilt the head down, then up.
    case nod
    /// Turn the head left and right.
    case shake
}

/// Which kinds of active challenge a session runs.
public enum LivenessType: String, Codable, CaseIterable, Sendable {
    /// Motion challenges only.
    case motion
    /// A colour-reflection sequence only.
    case reflection
    /// Motion challenges and a reflection sequence.
    case both

    /// Whether motion challenges are part of the session.
    public var includesMotion: Bool { self != .reflection }
    /// Whether a reflection sequence is part of the session.
    public var includesReflection: Bool { self != .motion }
}

/// A policy field that is out of range or inconsistent; values are never clamped silently.
public struct PolicyError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The offending field, as spelled in JSON.
    public let field: String
    /// What is wrong with it.
    public let reason: String

    /// Creates an error for `field`.
    public init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }

    public var description: String { "invalid policy field '\(field)': \(reason)" }
}

/// What a session must show to pass, chosen by the tenant backend, never by the device.
public struct LivenessPolicy: Codable, Hashable, Sendable {
    /// Valid range of `challengeTimeout`, in seconds.
    public static let challengeTimeoutRange = 5.0...60.0
    /// Valid range of `maxAttempts`.
    public static let maxAttemptsRange = 1...100

    /// Motions the planner may draw from.
    public var motions: [Motion]
    /// How many motion challenges a session gets (0 for reflection-only policies).
    public var count: Int
    /// Motions always included in the draw.
    public var fixed: [Motion]
    /// Motion, reflection or both.
    public var type: LivenessType
    /// Seconds a challenge may take once shown.
    public var challengeTimeout: Double
    /// Attempts before the session locks.
    public var maxAttempts: Int
    /// Stricter thresholds and a longer colour sequence for the reflection check.
    public var reflectionStrict: Bool
    /// Whether a person who declines the colour flashes may go on with motions only
    /// (`motionOnly()`); the signed result then says so (`risk.reflectionDeclined`).
    public var motionOnlyFallback: Bool
    /// Whether a session whose page reported a known virtual camera (`risk.virtualCamera`) fails
    /// (check `camera`, feedback `deviceIssue`).
    public var refuseVirtualCamera: Bool
    /// A document step before liveness, when the session has one.
    public var document: DocumentPolicy?

    /// Creates a policy; call `validated()` before use.
    public init(motions: [Motion] = Motion.allCases, count: Int, fixed: [Motion] = [], type: LivenessType = .motion,
                challengeTimeout: Double = 10, maxAttempts: Int = 3, reflectionStrict: Bool = false, motionOnlyFallback: Bool = false,
                refuseVirtualCamera: Bool = false, document: DocumentPolicy? = nil) {
        self.document = document
        self.motions = motions
        self.count = count
        self.fixed = fixed
        self.type = type
        self.challengeTimeout = challengeTimeout
        self.maxAttempts = maxAttempts
        self.reflectionStrict = reflectionStrict
        self.motionOnlyFallback = motionOnlyFallback
        self.refuseVirtualCamera = refuseVirtualCamera
    }

    /// The policy for a person who declined the flashes, when `motionOnlyFallback` allows one:
    /// motions only, one more than before to make up for the reflection check.
    public func motionOnly() -> LivenessPolicy? {
        guard motionOnlyFallback, type.includesReflection, !motions.isEmpty else { return nil }
        var fallback = self
        fallback.type = .motion
        fallback.count = min(motions.count, max(count, 1) + 1)
        fallback.reflectionStrict = false
        fallback.motionOnlyFallback = false
        return fallback
    }

    /// The documented default policy of a risk level (see docs/liveness.md).
    public static func preset(_ level: RiskLevel) -> LivenessPolicy {
        switch level {
        case .free: LivenessPolicy(count: 1)
        case .low: LivenessPolicy(count: 2)
        case .medium: LivenessPolicy(count: 2, type: .both)
        case .high: LivenessPolicy(count: 3, fixed: [.blink], type: .both, reflectionStrict: true)
        }
    }

    /// One step stricter, for a session that risk signals flag: a reflection sequence when there
    /// is none, else the strict one, else one more motion; nil when nothing stricter is left.
    /// (`low` raised is exactly `medium`.)
    public func raised() -> LivenessPolicy? {
        var stricter = self
        switch type {
        case .motion: stricter.type = .both
        case .reflection where !motions.isEmpty && !reflectionStrict:
            stricter.type = .both
            stricter.count = 1
        case .reflection, .both:
            if !reflectionStrict {
                stricter.reflectionStrict = true
            } else if type == .both, count < motions.count {
                stricter.count += 1
            } else {
                return nil
            }
        }
        return stricter
    }

    private enum CodingKeys: String, CodingKey {
        case motions, count, fixed, type, challengeTimeout, maxAttempts, reflectionStrict, motionOnlyFallback, refuseVirtualCamera, document
    }

    /// Decodes a policy; omitted fields take the defaults of `init`, `count` is required.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(motions: try c.decodeIfPresent([Motion].self, forKey: .motions) ?? Motion.allCases,
                  count: try c.decode(Int.self, forKey: .count),
                  fixed: try c.decodeIfPresent([Motion].self, forKey: .fixed) ?? [],
                  type: try c.decodeIfPresent(LivenessType.self, forKey: .type) ?? .motion,
                  challengeTimeout: try c.decodeIfPresent(Double.self, forKey: .challengeTimeout) ?? 10,
                  maxAttempts: try c.decodeIfPresent(Int.self, forKey: .maxAttempts) ?? 3,
                  reflectionStrict: try c.decodeIfPresent(Bool.self, forKey: .reflectionStrict) ?? false,
                  motionOnlyFallback: try c.decodeIfPresent(Bool.self, forKey: .motionOnlyFallback) ?? false,
                  refuseVirtualCamera: try c.decodeIfPresent(Bool.self, forKey: .refuseVirtualCamera) ?? false,
                  document: try c.decodeIfPresent(DocumentPolicy.self, forKey: .document))
    }

    /// The policy itself when every field is in range and consistent; otherwise the first problem.
    public func validated() throws(PolicyError) -> LivenessPolicy {
        guard Self.challengeTimeoutRange.contains(challengeTimeout) else {
            throw PolicyError(field: "challengeTimeout", reason: "must be within 5...60 seconds, got \(challengeTimeout)")
        }
        guard Self.maxAttemptsRange.contains(maxAttempts) else {
            throw PolicyError(field: "maxAttempts", reason: "must be within 1...100, got \(maxAttempts)")
        }
        guard Set(motions).count == motions.count else { throw PolicyError(field: "motions", reason: "lists a motion twice") }
        guard Set(fixed).count == fixed.count else { throw PolicyError(field: "fixed", reason: "lists a motion twice") }
        if let stray = fixed.first(where: { !motions.contains($0) }) {
            throw PolicyError(field: "fixed", reason: "'\(stray.rawValue)' is not among the allowed motions")
        }
        if type.includesMotion {
            guard !motions.isEmpty else { throw PolicyError(field: "motions", reason: "must not be empty for type '\(type.rawValue)'") }
            guard (1...motions.count).contains(count) else {
                throw PolicyError(field: "count", reason: "must be within 1...\(motions.count) (the allowed motions), got \(count)")
            }
            guard fixed.count <= count else {
                throw PolicyError(field: "fixed", reason: "has \(fixed.count) motions but count is \(count)")
            }
        } else {
            guard count == 0, fixed.isEmpty else {
                throw PolicyError(field: "count", reason: "must be 0 with no fixed motions for type 'reflection'")
            }
        }
        if motionOnlyFallback, !type.includesReflection || motions.isEmpty {
            throw PolicyError(field: "motionOnlyFallback", reason: "needs a reflection sequence and allowed motions to fall back to")
        }
        _ = try document?.validated()
        return self
    }
}
