import VigilCore
import VigilFace

/// Where one challenge stands.
public enum ChallengeState: String, Codable, Sendable {
    /// Not yet shown.
    case pending
    /// Shown; waiting for the motion.
    case active
    /// The motion was seen after the prompt.
    case passed
    /// `challengeTimeout` passed without the motion.
    case timedOut
    /// A motion that was not asked for was seen, or the asked one began before its prompt.
    case failed
}

/// One challenge of a session and what happened to it.
public struct ChallengeRecord: Codable, Hashable, Sendable {
    /// The motion asked for.
    public let kind: Motion
    /// Its state.
    public var state: ChallengeState
    /// When it was shown (capture-clock ms).
    public var promptedAtMs: Int?
    /// When it ended.
    public var endedAtMs: Int?
    /// Why it failed, for logs and the tenant (never shown to the device).
    public var reason: String?

    /// A record.
    public init(kind: Motion, state: ChallengeState, promptedAtMs: Int? = nil, endedAtMs: Int? = nil, reason: String? = nil) {
        self.kind = kind
        self.state = state
        self.promptedAtMs = promptedAtMs
        self.endedAtMs = endedAtMs
        self.reason = reason
    }
}

/// Live state returned for every frame.
public struct TrackerUpdate: Hashable, Sendable {
    /// What the person should fix first, nil when the face is well placed.
    public let guidance: FeedbackCode?
    /// Index of the current challenge, nil before the first is shown and after the last.
    public let challengeIndex: Int?
    /// Progress of the current challenge's motion in [0, 1].
    public let progress: Double
    /// Whether the tracker has finished (all passed, or one failed or timed out).
    public let finished: Bool
}

/// Consumes timestamped observations one at a time and runs the motion challenges of a plan.
///
/// A neutral baseline is taken from the person's own first well-placed frames; each challenge is
/// shown only after a well-placed, neutral face has been held for the plan's random hold time, and
/// passes when the motion, measured relative to that baseline, starts after the prompt. A motion
/// not asked for (other than a natural blink), or one made while waiting for a prompt, fails the
/// challenge, so a video that shows every motion cannot pass. Memory is constant.
public struct ChallengeTracker: Codable, Sendable {
    // Durations, not frame counts: the camera may deliver 5 frames a second or 10, and a hold
    // or a confirmation must mean the same time at every rate.
    /// Frames (at least) and capture time (ms, at least) the neutral baseline is taken over: a
    /// slow feed (a busy server, a slow network) must not leave it resting on two or three noisy
    /// frames, against which landmark noise could read as a blink.
    public static let baselineFrames = 5, baselineMs = 400
    /// How long an unsolicited extreme must persist to count (ms): one frame's landmark glitch
    /// does not fail a person, a deliberate motion always lasts longer.
    public static let confirmMs = 150
    /// A head resting this long between one side and the other ends a swing (ms): a shake passes
    /// the middle in 100-300 ms.
    public static let swingRestMs = 500
    /// A turn or a nod held past its threshold this long passes without coming back (ms): the
    /// prompt says "turn", and people told to turn often hold it until they see it counted.
    public static let heldMotionMs = 600
    /// Eyes that dipped without reading shut must open again within this long (ms) to count as
    /// a blink: a blink lasts 100-400 ms, eyes relaxing from a wide-eyed look stay down.
    public static let dipReopenMs = 400

    /// The challenges, in order, with their outcomes.
    public private(set) var challenges: [ChallengeRecord]
    /// The baseline once taken.
    public private(set) var baseline: Baseline?

    private let timeoutMs: Int
    private let holdMs: [Int]
    private var neutralSinceMs: Int?
    private let thresholds: MotionThresholds
    /// The placement rules behind live guidance.
    public let placement: FacePlacementCheck
    private var current = 0
    private var samples: [Baseline] = []
    /// When each of `samples` was taken (optional: states stored before decode without it).
    private var sampleTimesMs: [Int]?
    private var phase = MotionPhase()
    private var settling: Set<Signal.Extreme> = []   // the passed motion's extremes, until the next prompt
    private var unsolicitedSinceMs: [Signal.Extreme: Int] = [:]

    /// A person's neutral face: eye and mouth openness and head pose.
    public struct Baseline: Codable, Hashable, Sendable {
        /// Mean eye aspect ratio.
        public var eyes: Double
        /// Each eye's detail, where every baseline frame measured it.
        public var eyeDetail: EyeDetail?
        /// The face's sharpness (`FaceQuality.sharpness`).
        public var sharpness: Double?
        /// Mouth aspect ratio.
        public var mouth: Double
        /// Yaw in degrees.
        public var yaw: Double
        /// Pitch in degrees.
        public var pitch: Double
    }

    /// Progress of the motion in the current challenge.
    private struct MotionPhase: Codable, Sendable {
        var reachedExtreme = false   // eyes shut, mouth open, head turned or down
        /// The furthest yaw each way so far: a shake's swing, or one made during a blink or an open mouth.
        var leftmostYaw: Double?
        var rightmostYaw: Double?
        var startedAtMs: Int?
        var blinkIgnoredUntilOpen = false
        /// The eyes' landmark openness on the last frame before a blink shut them.
        var openEyes: Double?
        /// When the eyes dipped (`MotionThresholds.eyesDipRatio`) without reading shut.
        var dippedAtMs: Int?
        /// The furthest a turn or a nod went, in degrees toward its extreme.
        var furthest: Double?
        /// Since when a turn or a nod has stayed past its threshold.
        var heldSinceMs: Int?
        /// Since when the head has rested within `restWithin` of the baseline's yaw.
        var centredSinceMs: Int?

        /// Widens the swing to take in `yaw` at `timestampMs`; returns its furthest yaw each way.
        /// A swing is one continuous motion: a head that rests within `restWithin` degrees of the
        /// baseline for `ChallengeTracker.swingRestMs` starts a new one, so a turn one way, a
        /// pause, then a turn the other way (a recording's motions one after another) is no shake.
        mutating func widenSwing(to yaw: Double, at timestampMs: Int, restWithin: Double) -> (left: Double, right: Double) {
            if abs(yaw) < restWithin {
                let since = centredSinceMs ?? timestampMs
                centredSinceMs = since
                if timestampMs - since >= ChallengeTracker.swingRestMs { leftmostYaw = nil; rightmostYaw = nil }
            } else {
                centredSinceMs = nil
            }
            leftmostYaw = max(leftmostYaw ?? yaw, yaw)
            rightmostYaw = min(rightmostYaw ?? yaw, yaw)
            return (leftmostYaw!, rightmostYaw!)
        }
    }

    /// A tracker for a plan's motions and hold times under `policy`.
    public init(plan: ChallengePlan, policy: LivenessPolicy, thresholds: MotionThresholds = .standard,
                placement: FacePlacementCheck = FacePlacementCheck()) {
        precondition(plan.holdMs.count == plan.motions.count, "one hold time per motion")
        challenges = plan.motions.map { ChallengeRecord(kind: $0, state: .pending) }
        holdMs = plan.holdMs
        timeoutMs = Int(policy.challengeTimeout * 1000)
        self.thresholds = thresholds
        self.placement = placement
    }

    /// Whether every challenge passed.
    public var passed: Bool { challenges.allSatisfy { $0.state == .passed } }
    /// Whether nothing more can happen.
    public var finished: Bool { passed || challenges.contains { $0.state == .timedOut || $0.state == .failed } }

    /// Whether `face` shows the person's resting face: each eye open, mouth and pose as in the
    /// baseline (the mouth within a quarter of the open threshold either way: descriptors move
    /// with the lips). True before the baseline exists.
    public func isResting(_ face: FaceObservation) -> Bool {
        guard let baseline else { return true }
        let signal = Signal(face: face, baseline: baseline, thresholds: thresholds)
        let eyeOpen = baseline.eyes * thresholds.eyesOpenRatio
        return signal.isNeutral && face.eyes.left > eyeOpen && face.eyes.right > eyeOpen && abs(signal.mouth) < thresholds.mouthSpeechIncrease / 4
    }

    /// Whether `face` looks at the camera with its eyes open and its mouth not opened as far as
    /// the motion, pose within a turn and a nod of the baseline: what an identity sample after the
    /// first needs (descriptors of one person stay well within their limit there). True before
    /// the baseline exists.
    public func isFacingCamera(_ face: FaceObservation) -> Bool {
        guard let baseline else { return true }
        let signal = Signal(face: face, baseline: baseline, thresholds: thresholds)
        return abs(signal.yaw) < thresholds.turnDegrees * thresholds.unsolicitedMargin && abs(signal.pitch) < thresholds.nodDegrees
            && !signal.eyesClosed
            && signal.mouth < thresholds.mouthSpeechIncrease
    }

    /// Whether `face` is in the neutral zone the prompts wait for (pose and mouth); true before
    /// the baseline exists.
    public func isNeutral(_ face: FaceObservation) -> Bool {
        guard let baseline else { return true }
        return Signal(face: face, baseline: baseline, thresholds: thresholds).isNeutral
    }

    /// Whether `face` is turned or bowed as far as a motion nobody asked for must go, on a trusted
    /// track, other than by the motion just passed (a person may still be coming back from it):
    /// what a person asked to keep still while the colours show does not do, and a recording
    /// that ignores the prompts does every second or two.
    public func isTurnedOrBowed(_ face: FaceObservation) -> Bool {
        guard let baseline, !face.isDoubtful else { return false }
        let signal = Signal(face: face, baseline: baseline, thresholds: thresholds)
        return !signal.unsolicitedExtremes.subtracting([.mouthOpen]).subtracting(settling).isEmpty
    }

    /// Feeds one frame's faces (largest first) taken at `timestampMs` on the capture clock.
    public mutating func observe(_ faces: [FaceObservation], at timestampMs: Int) -> TrackerUpdate {
        let guidance = placement.guidance(for: faces)
        guard !finished else { return update(guidance, progress: 0) }
        if current < challenges.count, challenges[current].state == .active,
           let prompted = challenges[current].promptedAtMs, timestampMs - prompted > timeoutMs {
            end(.timedOut, at: timestampMs, reason: "timeout")
            return update(guidance, progress: 0)
        }
        guard faces.count == 1, let face = faces.first else { return update(guidance, progress: 0) }
        // A doubtful track's pose says nothing: it neither moves a challenge nor fails one.
        guard !face.isDoubtful else { return update(guidance, progress: 0) }

        guard let baseline else {
            if guidance == nil && abs(face.pose.yaw) < 15 && abs(face.pose.pitch) < 15 {
                if (sampleTimesMs?.count ?? 0) != samples.count { (samples, sampleTimesMs) = ([], []) }   // a state stored without their times
                samples.append(Baseline(eyes: (face.eyes.left + face.eyes.right) / 2, eyeDetail: face.eyeDetail, sharpness: face.quality.sharpness,
                                        mouth: face.mouth, yaw: face.pose.yaw, pitch: face.pose.pitch))
                sampleTimesMs = (sampleTimesMs ?? []) + [timestampMs]
                // A head still moving is no baseline: a nod or a turn under way would shift every
                // threshold after it (a recording bowing as it starts made its later nods read
                // small). The window slides until its pose holds within `baselineSpreadDegrees`.
                while samples.count > 1, Self.spread(samples.map(\.yaw)) > Self.baselineSpreadDegrees
                        || Self.spread(samples.map(\.pitch)) > Self.baselineSpreadDegrees {
                    samples.removeFirst()
                    sampleTimesMs?.removeFirst()
                }
                // The baseline's frames are a resting, well-placed face: the first hold counts them.
                neutralSinceMs = sampleTimesMs?.first ?? timestampMs
                if samples.count >= Self.baselineFrames, let since = neutralSinceMs, timestampMs - since >= Self.baselineMs { settleBaseline() }
            } else {
                neutralSinceMs = nil
                samples = []
                sampleTimesMs = []
            }
            return update(guidance ?? (samples.isEmpty ? nil : .holdStill), progress: 0)
        }

        let signal = Signal(face: face, baseline: baseline, thresholds: thresholds)
        if challenges[current].state == .pending {
            // A deliberate motion while waiting for a prompt is a motion before its prompt, except
            // the one just passed: the person sees the pass a moment late and may still be coming
            // back from it, or do it once more (a landmark misread on a held open mouth also reads
            // as a return to neutral and a second opening). Repeating it gains a recording nothing.
            let early = signal.unsolicitedExtremes.subtracting(settling)
            guard !confirmed(early, at: timestampMs) else {
                end(.failed, at: timestampMs, reason: "before_prompt_\(early.map(\.rawValue).sorted().joined(separator: "_"))")
                return update(.motionIssue, progress: 0)
            }
            // Reveal only after a well-placed, neutral face was held for the drawn hold time.
            guard guidance == nil, signal.isNeutral else {
                neutralSinceMs = nil
                return update(guidance ?? .holdStill, progress: 0)
            }
            let since = neutralSinceMs ?? timestampMs
            neutralSinceMs = since
            guard timestampMs - since >= holdMs[current] else { return update(nil, progress: 0) }
            neutralSinceMs = nil
            challenges[current].state = .active
            challenges[current].promptedAtMs = timestampMs
            settling = []
            phase = MotionPhase()
            return update(nil, progress: 0)
        }

        let kind = challenges[current].kind
        var unsolicited = signal.unsolicitedExtremes(during: kind).subtracting(Self.allowedExtremes(for: kind))
        // Once the asked head motion is under way, the mouth is free: people talk, breathe out or
        // round their lips as they turn or shake. Before it, an open mouth is the wrong motion.
        if kind != .blink && kind != .mouthOpen && phase.startedAtMs != nil { unsolicited.remove(.mouthOpen) }
        if kind == .blink || kind == .mouthOpen, !signal.eyesClosed {
            // A turn within the co-motion limit is one way; a head swung both ways is a shake.
            let (left, right) = phase.widenSwing(to: signal.yaw, at: timestampMs, restWithin: thresholds.shakeDegrees / 2)
            if left >= thresholds.shakeDegrees && right <= -thresholds.shakeDegrees { unsolicited.formUnion([.yawLeft, .yawRight]) }
        }
        if confirmed(unsolicited, at: timestampMs) {
            end(.failed, at: timestampMs, reason: "unsolicited_\(unsolicited.map(\.rawValue).sorted().joined(separator: "_"))")
            return update(.motionIssue, progress: 0)
        }
        let progress = advance(kind, signal, at: timestampMs)
        return update(guidance, progress: progress)
    }

    /// Whether an unsolicited extreme is real: seen in consecutive frames for `confirmMs`, so
    /// that a landmark glitch does not fail a person, while any deliberate motion still does.
    private mutating func confirmed(_ unsolicited: Set<Signal.Extreme>, at timestampMs: Int) -> Bool {
        unsolicitedSinceMs = unsolicitedSinceMs.filter { unsolicited.contains($0.key) }
        for extreme in unsolicited where unsolicitedSinceMs[extreme] == nil { unsolicitedSinceMs[extreme] = timestampMs }
        return unsolicitedSinceMs.values.contains { timestampMs - $0 >= Self.confirmMs }
    }

    /// The most the baseline's frames may differ in yaw or in pitch (degrees).
    public static let baselineSpreadDegrees = 5.0

    private static func spread(_ values: [Double]) -> Double { (values.max() ?? 0) - (values.min() ?? 0) }

    private mutating func settleBaseline() {
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        // Samples kept by an engine before these were measured have neither.
        let details = samples.compactMap(\.eyeDetail), sharpness = samples.compactMap(\.sharpness)
        let eyeDetail = details.count == samples.count ? EyeDetail(left: median(details.map(\.left)), right: median(details.map(\.right))) : nil
        baseline = Baseline(eyes: median(samples.map(\.eyes)), eyeDetail: eyeDetail,
                            sharpness: sharpness.count == samples.count ? median(sharpness) : nil,
                            mouth: median(samples.map(\.mouth)), yaw: median(samples.map(\.yaw)), pitch: median(samples.map(\.pitch)))
        samples = []
        sampleTimesMs = nil
    }

    /// Advances the current challenge's motion; returns its progress.
    private mutating func advance(_ kind: Motion, _ signal: Signal, at timestampMs: Int) -> Double {
        let prompted = challenges[current].promptedAtMs ?? timestampMs
        // Under way means most of the way and out of the neutral zone the prompt waited for: head
        // wander and landmark noise stay inside it.
        if !phase.reachedExtreme, signal.movement(for: kind) > 0.6, kind == .blink || !signal.isNeutral, phase.startedAtMs == nil {
            phase.startedAtMs = timestampMs
            if timestampMs - prompted < thresholds.minimumReactionMs {
                // Under way before the prompt could be seen. A blink then is likely natural: ignore it.
                guard kind == .blink else {
                    end(.failed, at: timestampMs, reason: "started_before_prompt")
                    return 0
                }
                phase = MotionPhase(blinkIgnoredUntilOpen: true)
            }
        }
        if phase.blinkIgnoredUntilOpen {
            guard signal.eyesReopened else { return 0 }
            phase = MotionPhase()
            return 0
        }
        let done: Bool
        switch kind {
        case .blink:
            if signal.eyesShut {
                phase.reachedExtreme = true
                phase.dippedAtMs = nil
            } else if !phase.reachedExtreme, let open = phase.openEyes, signal.eyes < open * thresholds.eyesDipRatio {
                // Dipped from the frame before: a blink caught half shut between frames.
                phase.reachedExtreme = true
                phase.dippedAtMs = timestampMs
            }
            // Open again as wide as just before the blink, when that was less than the baseline:
            // a baseline taken wide-eyed (brows raised at the camera) is not where relaxed eyes
            // come back to.
            if !phase.reachedExtreme { phase.openEyes = signal.eyes }
            done = phase.reachedExtreme && signal.eyesReopened(to: phase.openEyes)
            // A dip that stays was the eyes relaxing, not a blink: their new level is the open one.
            if !done, let dipped = phase.dippedAtMs, timestampMs - dipped > Self.dipReopenMs {
                phase.reachedExtreme = false
                phase.dippedAtMs = nil
                phase.openEyes = signal.eyes
            }
        case .mouthOpen:
            done = signal.extremes.contains(.mouthOpen)
        case .turnLeft, .turnRight, .nod:
            let extreme: Signal.Extreme = kind == .turnLeft ? .yawLeft : kind == .turnRight ? .yawRight : .pitchDown
            let beyond = signal.extremes.contains(extreme)
            if beyond { phase.reachedExtreme = true }
            phase.heldSinceMs = beyond ? phase.heldSinceMs ?? timestampMs : nil
            let held = phase.heldSinceMs.map { timestampMs - $0 } ?? 0
            // Back means to neutral, or half-way from the furthest point: people often stop short
            // of where they started, and a head that turned 30 degrees and came back to 12 did turn.
            // A head held there passes too: the prompt never asked for the way back.
            let reach = kind == .turnLeft ? signal.yaw : kind == .turnRight ? -signal.yaw : -signal.pitch
            phase.furthest = max(phase.furthest ?? reach, reach)
            done = phase.reachedExtreme && (signal.isNeutral || reach <= phase.furthest! / 2 || held >= Self.heldMotionMs)
            if !done && beyond { return 0.5 + 0.5 * Double(held) / Double(Self.heldMotionMs) }
        case .shake:
            // A swing through the baseline: its width counts, not where it sits, since a
            // baseline a few degrees off would otherwise hide one side of a real shake.
            let half = thresholds.shakeDegrees / 2
            let (left, right) = phase.widenSwing(to: signal.yaw, at: timestampMs, restWithin: half)
            done = left >= half && right <= -half && left - right >= 2 * thresholds.shakeDegrees
        }
        if done {
            end(.passed, at: timestampMs)
            return 1
        }
        return phase.reachedExtreme ? max(0.5, signal.movement(for: kind) / 2) : min(0.5, signal.movement(for: kind) / 2)
    }

    private mutating func end(_ state: ChallengeState, at timestampMs: Int, reason: String? = nil) {
        challenges[current].state = state
        challenges[current].endedAtMs = timestampMs
        challenges[current].reason = reason
        if state == .passed {
            settling = Self.allowedExtremes(for: challenges[current].kind)
            current += 1
        }
    }

    private func update(_ guidance: FeedbackCode?, progress: Double) -> TrackerUpdate {
        let index = current < challenges.count && challenges[current].state == .active ? current : nil
        return TrackerUpdate(guidance: guidance, challengeIndex: index, progress: progress, finished: finished)
    }

    /// The extreme positions a challenge may show; any other is an unsolicited motion.
    static func allowedExtremes(for kind: Motion) -> Set<Signal.Extreme> {
        switch kind {
        case .blink: []
        case .mouthOpen: [.mouthOpen]
        case .turnLeft: [.yawLeft]
        case .turnRight: [.yawRight]
        case .nod: [.pitchDown]
        case .shake: [.yawLeft, .yawRight]
        }
    }
}

/// One frame's face measured against the baseline.
struct Signal {
    /// Deliberate positions that only a requested motion may reach.
    enum Extreme: String, Codable, Hashable, Sendable { case yawLeft, yawRight, pitchDown, mouthOpen }

    let eyes: Double, mouth: Double, yaw: Double, pitch: Double
    /// Each eye's detail over its baseline; nil where either was not measured or the face is
    /// too blurred for it to mean anything.
    let eyeDetail: EyeDetail?
    let thresholds: MotionThresholds
    let baseline: ChallengeTracker.Baseline

    init(face: FaceObservation, baseline: ChallengeTracker.Baseline, thresholds: MotionThresholds) {
        eyes = (face.eyes.left + face.eyes.right) / 2
        if let detail = face.eyeDetail, let open = baseline.eyeDetail, open.left > 0, open.right > 0, let sharpness = baseline.sharpness,
           face.quality.sharpness >= sharpness * thresholds.eyeDetailMinimumSharpness {
            eyeDetail = EyeDetail(left: detail.left / open.left, right: detail.right / open.right)
        } else {
            eyeDetail = nil
        }
        mouth = face.mouth - baseline.mouth
        yaw = face.pose.yaw - baseline.yaw
        pitch = face.pose.pitch - baseline.pitch
        self.thresholds = thresholds
        self.baseline = baseline
    }

    /// Closed by the landmarks: what pose readings are doubted on (shut lids pull them).
    var eyesClosed: Bool { eyes < baseline.eyes * thresholds.eyesClosedRatio }
    var eyesOpen: Bool { eyes > baseline.eyes * thresholds.eyesOpenRatio }
    /// Shut by the landmarks or by both eyes' look (a turn dims one eye's detail, a blink both).
    var eyesShut: Bool { eyesClosed || eyeDetail.map { max($0.left, $0.right) < thresholds.eyeDetailShutRatio } == true }
    /// Open again by both measures.
    var eyesReopened: Bool { eyesReopened(to: nil) }
    /// Open again by both measures, the landmarks' against `level` where it is below the baseline
    /// (never below where they count as closed).
    func eyesReopened(to level: Double?) -> Bool {
        let reference = max(min(baseline.eyes, level ?? baseline.eyes), baseline.eyes * thresholds.eyesClosedRatio / thresholds.eyesOpenRatio)
        return eyes > reference * thresholds.eyesOpenRatio
            && eyeDetail.map { min($0.left, $0.right) > thresholds.eyeDetailOpenRatio } != false
    }
    var isNeutral: Bool {
        abs(yaw) < thresholds.neutralDegrees && abs(pitch) < thresholds.neutralDegrees
            && mouth < thresholds.mouthSpeechIncrease / 2
    }

    /// The positions the face has reached, for the motion that was asked for. Its extreme
    /// counts with the eyes reading closed too: they do on a head bowed or turned far, and people
    /// blink as they turn. Shut eyelids pull the eye landmarks down, which reads as a little
    /// pitch, so a nod seen that way must go `unsolicitedMargin` further. An open mouth counts on
    /// a head turned less than `mouthTurnDegrees`: people turn a little as they open it.
    var extremes: Set<Extreme> {
        extremes(turnBeyond: thresholds.turnDegrees, nodBeyond: thresholds.nodDegrees, mouthBeyond: thresholds.mouthOpenIncrease,
                 mouthYawWithin: thresholds.mouthTurnDegrees, withEyesClosed: true)
    }

    /// The positions a motion nobody asked for must reach: beyond `unsolicitedMargin` times their
    /// thresholds, since landmark pitch leaks on a head coming back from a turn, the mouth
    /// measure on other motions, and people's heads wander as they wait, while a deliberate
    /// motion goes well past them.
    /// Pose read on a blink is not trusted to fail anyone: the landmarks of shut eyes can read as
    /// a turn.
    var unsolicitedExtremes: Set<Extreme> { unsolicitedExtremes(during: nil) }

    /// The same while `kind` is asked for: during a blink or an open mouth, which do not move the
    /// head, a turn or a nod counts only beyond the co-motion limits (`MotionThresholds`), and
    /// during a blink an open mouth too. During a turn, a turn the other way counts from a turn's
    /// own threshold: it is neither wander nor a co-motion, and a recording's turns that ignore
    /// the prompt mostly stay under the margin (the turn asked for is never unsolicited).
    func unsolicitedExtremes(during kind: Motion?) -> Set<Extreme> {
        let coMotion = kind == .blink || kind == .mouthOpen, turning = kind == .turnLeft || kind == .turnRight
        return extremes(turnBeyond: coMotion ? thresholds.coMotionTurnDegrees
                            : turning ? thresholds.turnDegrees : thresholds.turnDegrees * thresholds.unsolicitedMargin,
                        nodBeyond: coMotion ? thresholds.coMotionNodDegrees : thresholds.nodDegrees * thresholds.unsolicitedMargin,
                        mouthBeyond: thresholds.mouthSpeechIncrease * (kind == .blink ? thresholds.coMotionMouthMargin : thresholds.unsolicitedMargin),
                        mouthYawWithin: thresholds.neutralDegrees,
                        withEyesClosed: false)
    }

    private func extremes(turnBeyond: Double, nodBeyond: Double, mouthBeyond: Double, mouthYawWithin: Double, withEyesClosed: Bool) -> Set<Extreme> {
        var out: Set<Extreme> = []
        // One axis leaks into the other at large angles: only the dominant axis counts.
        if !eyesClosed || withEyesClosed {
            let turn = abs(yaw) / thresholds.turnDegrees, nod = -pitch / thresholds.nodDegrees
            if abs(yaw) >= turnBeyond, turn >= nod { out.insert(yaw > 0 ? .yawLeft : .yawRight) }
            if -pitch >= nodBeyond * (eyesClosed ? thresholds.unsolicitedMargin : 1), nod > turn { out.insert(.pitchDown) }
        }
        // Mouth landmarks are unreliable on a head turned far.
        if mouth >= mouthBeyond, abs(yaw) < mouthYawWithin { out.insert(.mouthOpen) }
        return out
    }

    /// How far toward the motion's extreme the face is, in [0, 1].
    func movement(for kind: Motion) -> Double {
        let value: Double
        switch kind {
        case .blink:
            let landmarks = (1 - eyes / max(baseline.eyes, 0.01)) / (1 - thresholds.eyesClosedRatio)
            value = max(landmarks, eyeDetail.map { (1 - max($0.left, $0.right)) / (1 - thresholds.eyeDetailShutRatio) } ?? 0)
        case .mouthOpen: value = mouth / thresholds.mouthOpenIncrease
        case .turnLeft: value = yaw / thresholds.turnDegrees
        case .turnRight: value = -yaw / thresholds.turnDegrees
        case .nod: value = -pitch / thresholds.nodDegrees
        case .shake: value = abs(yaw) / thresholds.shakeDegrees
        }
        return min(max(value, 0), 1)
    }
}
