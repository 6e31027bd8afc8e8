/// When a motion counts, relative to the person's own neutral baseline.
public struct MotionThresholds: Codable, Sendable, Hashable {
    /// Eyes count as closed below this fraction of the baseline eye aspect ratio.
    public var eyesClosedRatio = 0.72
    /// Eyes count as open again above this fraction.
    public var eyesOpenRatio = 0.85
    /// Eyes count as shut by their look too when each eye's detail (`EyeDetail`) falls below
    /// this fraction of its baseline: on some faces the eye landmarks barely close.
    public var eyeDetailShutRatio = 0.75
    /// And as open again when each eye's detail is back above this fraction.
    public var eyeDetailOpenRatio = 0.85
    /// Eye detail counts only on a face at least this fraction as sharp as the baseline's:
    /// blur takes detail from open eyes too.
    public var eyeDetailMinimumSharpness = 0.5
    /// Mouth aspect ratio increase over baseline that counts as open.
    public var mouthOpenIncrease = 0.2
    /// Yaw change (degrees) that counts as a turn.
    public var turnDegrees = 12.0
    /// A shake swings twice this many degrees of yaw from one side to the other, at least half
    /// of this each way from the baseline.
    public var shakeDegrees = 10.0
    /// Downward pitch change (degrees) that counts as a nod.
    public var nodDegrees = 9.0
    /// Within this many degrees of baseline the head counts as back to neutral.
    public var neutralDegrees = 8.0
    /// A motion starting sooner than this after its prompt was under way before it (ms).
    public var minimumReactionMs = 200
    /// A nod or an open mouth nobody asked for counts only beyond this multiple of its threshold.
    public var unsolicitedMargin = 1.25

    /// The defaults above.
    public static let standard = MotionThresholds()

    /// Creates the defaults.
    public init() {}
}
