import VigilFace

/// When a motion counts, relative to the person's own neutral baseline.
public struct MotionThresholds: Codable, Sendable, Hashable {
    /// Eyes count as closed below this fraction of the baseline eye aspect ratio.
    public var eyesClosedRatio = 0.72
    /// Eyes count as open again above this fraction.
    public var eyesOpenRatio = 0.85
    /// While a blink is asked for, eyes count as shut too when they fall below this fraction of
    /// the frame before and open again within `ChallengeTracker.dipReopenMs`: at 5 or 10 frames
    /// a second a quick blink's shut frames often fall between two, and the frame caught is half
    /// shut (real blinks read 0.73-0.83 of the frame before).
    public var eyesDipRatio = 0.8
    /// Eyes count as shut by their look too when each eye's detail (`EyeDetail`) falls below
    /// this fraction of its baseline: on some faces the eye landmarks barely close.
    public var eyeDetailShutRatio = 0.75
    /// And as open again when each eye's detail is back above this fraction.
    public var eyeDetailOpenRatio = 0.85
    /// Eye detail counts only on a face at least this fraction as sharp as the baseline's:
    /// blur takes detail from open eyes too.
    public var eyeDetailMinimumSharpness = 0.5
    /// Mouth aspect ratio increase over baseline that answers an open-mouth prompt. Real people's
    /// moderate openings read 0.14-0.17, as far as lively speech goes: that is enough to answer
    /// the prompt, not to count as a motion nobody asked for (`mouthSpeechIncrease`).
    public var mouthOpenIncrease = 0.14
    /// An open mouth answers its prompt on a head turned less than this many degrees from the
    /// baseline: people turn a little as they open their mouth, and the landmarks of a mouth
    /// turned further are not trusted.
    public var mouthTurnDegrees = 11.875
    /// How far speech opens the mouth: the scale for an open mouth nobody asked for, for the
    /// neutral zone, and for a face resting or facing the camera.
    public var mouthSpeechIncrease = 0.2
    /// Yaw change (degrees) that counts as a turn. Landmarks under-read yaw: real people's turns
    /// of 15-20 degrees read 9-11 over the baseline, rendered ones of 28-36 read 8-14.
    public var turnDegrees = 9.5
    /// A shake swings twice this many degrees of yaw from one side to the other, at least half
    /// of this each way from the baseline.
    public var shakeDegrees = 10.0
    /// Downward pitch change (degrees) that counts as a nod.
    public var nodDegrees = 9.0
    /// Within this many degrees of baseline the head counts as back to neutral.
    public var neutralDegrees = 8.0
    /// A motion starting sooner than this after its prompt was under way before it (ms).
    public var minimumReactionMs = 200
    /// A turn, a nod or an open mouth nobody asked for counts only beyond this multiple of its
    /// threshold.
    public var unsolicitedMargin = 1.25
    /// While a blink or an open mouth is asked for, a turn counts as another motion only beyond
    /// this many degrees of yaw: people turn a little as they open their mouth in surprise (a
    /// turn of 10-13 degrees read 17-19 over the baseline, the open jaw pulling the fit), where
    /// a deliberate turn goes further.
    public var coMotionTurnDegrees = 22.0
    /// And a nod only beyond this many degrees of pitch: people nod a little as they blink.
    public var coMotionNodDegrees = 16.0
    /// While a blink is asked for, an open mouth counts as another motion only beyond this
    /// multiple of its threshold: people blink as they laugh or talk.
    public var coMotionMouthMargin = 2.0

    /// The defaults for the landmark model this process reads faces with
    /// (`LandmarkModel.configured`).
    public static var standard: MotionThresholds { standard(for: .configured) }

    /// The defaults for the angles `model` reads. The ones above were tuned on the 68-point
    /// model's readings, which under-read head pose: on AFLW2000-3D's photos (`scripts/eval-pose`,
    /// docs/face-engine.md) its yaw reads 0.87 of the truth within 20 degrees and 0.79 within 40,
    /// its pitch 0.55, where the mesh's reads 1.0 and 0.98, and 0.92. The mesh's thresholds are
    /// the same motions in its readings: on those photos its yaw reads 1.09 times the 68 points'
    /// near 10 degrees and 1.24 times near 22, its pitch 1.41 times. Its mouth ratio reads about
    /// 1.15 times theirs on the real-face clips' frames (1,221 frames of 28 clips).
    public static func standard(for model: LandmarkModel) -> MotionThresholds {
        var thresholds = MotionThresholds()
        guard model == .mesh else { return thresholds }
        thresholds.turnDegrees = 10.5
        thresholds.shakeDegrees = 11
        thresholds.nodDegrees = 12.5
        thresholds.neutralDegrees = 9.5
        thresholds.coMotionTurnDegrees = 27
        thresholds.coMotionNodDegrees = 22.5
        thresholds.mouthOpenIncrease = 0.16
        // The mesh reads a turned mouth in 3D: real people's openings made with a turn of 13-20
        // degrees by its reading count.
        thresholds.mouthTurnDegrees = 20
        thresholds.mouthSpeechIncrease = 0.23
        return thresholds
    }

    /// Creates the defaults.
    public init() {}

    private enum CodingKeys: String, CodingKey {
        case eyesClosedRatio, eyesOpenRatio, eyesDipRatio, eyeDetailShutRatio, eyeDetailOpenRatio, eyeDetailMinimumSharpness, mouthOpenIncrease, mouthTurnDegrees, mouthSpeechIncrease,
             turnDegrees, shakeDegrees, nodDegrees, neutralDegrees, minimumReactionMs, unsolicitedMargin, coMotionTurnDegrees, coMotionNodDegrees,
             coMotionMouthMargin
    }

    /// Decodes stored thresholds; a threshold added since they were stored takes its default, so
    /// a session in progress across an upgrade continues.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func value<T: Decodable>(_ key: CodingKeys, _ fallback: T) throws -> T { try c.decodeIfPresent(T.self, forKey: key) ?? fallback }
        let d = Self.standard
        eyesClosedRatio = try value(.eyesClosedRatio, d.eyesClosedRatio)
        eyesOpenRatio = try value(.eyesOpenRatio, d.eyesOpenRatio)
        eyesDipRatio = try value(.eyesDipRatio, d.eyesDipRatio)
        eyeDetailShutRatio = try value(.eyeDetailShutRatio, d.eyeDetailShutRatio)
        eyeDetailOpenRatio = try value(.eyeDetailOpenRatio, d.eyeDetailOpenRatio)
        eyeDetailMinimumSharpness = try value(.eyeDetailMinimumSharpness, d.eyeDetailMinimumSharpness)
        mouthOpenIncrease = try value(.mouthOpenIncrease, d.mouthOpenIncrease)
        mouthTurnDegrees = try value(.mouthTurnDegrees, d.mouthTurnDegrees)
        mouthSpeechIncrease = try value(.mouthSpeechIncrease, d.mouthSpeechIncrease)
        turnDegrees = try value(.turnDegrees, d.turnDegrees)
        shakeDegrees = try value(.shakeDegrees, d.shakeDegrees)
        nodDegrees = try value(.nodDegrees, d.nodDegrees)
        neutralDegrees = try value(.neutralDegrees, d.neutralDegrees)
        minimumReactionMs = try value(.minimumReactionMs, d.minimumReactionMs)
        unsolicitedMargin = try value(.unsolicitedMargin, d.unsolicitedMargin)
        coMotionTurnDegrees = try value(.coMotionTurnDegrees, d.coMotionTurnDegrees)
        coMotionNodDegrees = try value(.coMotionNodDegrees, d.coMotionNodDegrees)
        coMotionMouthMargin = try value(.coMotionMouthMargin, d.coMotionMouthMargin)
    }
}
