import VigilCore
import VigilFace

/// One uploaded frame as the engine sees it: when it was captured, the faces found in it (largest
/// first) and a hash of its bytes.
public struct LivenessFrame: Sendable {
    /// Capture time in ms since capture start (the device's monotonic clock).
    public let timestampMs: Int
    /// Faces, largest first.
    public let faces: [FaceObservation]
    /// Hash of the encoded frame, for repeated-frame detection.
    public let contentHash: UInt64
    /// `ScreenPatternMeter.periodicity` of the face, on the frames where it was measured.
    public let screenPattern: Double?

    /// Creates a frame.
    public init(timestampMs: Int, faces: [FaceObservation], contentHash: UInt64, screenPattern: Double? = nil) {
        self.timestampMs = timestampMs
        self.faces = faces
        self.contentHash = contentHash
        self.screenPattern = screenPattern
    }
}

/// The liveness engine for one attempt: challenges, passive checks and the decision. Pure and
/// deterministic: `CaptureAttempt` feeds it the same way in the server, the evaluation and
/// `vigil liveness`. Memory is bounded, and the whole state is `Codable` so an attempt can
/// continue in another process.
public struct LivenessEngine: Codable, Sendable {
    /// Changes whenever a check, a threshold or the decision changes, so an answer can be traced
    /// to the engine that gave it (`/healthz`, the SDK's `versionInfo`).
    // 1.1: a blink also counts when both eyes lose their detail (EyeDetail); a doubtful
    // track moves no challenge. 2.0: the face mesh's landmarks and pose, thresholds in its degrees.
    // 2.1: a turn or a nod held passes; the mouth is free during an asked head motion; the
    // mesh's open mouth counts on a head turned up to 20 degrees. 2.2: the planar check reads
    // the mesh's points spread over the face; camera faces come from the short-range detector.
    // 2.3: a blink counts from eyes dipped against the frame before.
    public static let version = "2.3"

    /// A candidate for the audit image: a frame's timestamp and suitability in [0, 1].
    public struct AuditFrame: Codable, Sendable {
        /// The frame's capture time.
        public let timestampMs: Int
        /// How well it suits the audit image.
        public let suitability: Double
    }

    private struct TimedColor: Codable, Sendable {
        let color: FaceColor, timestampMs: Int
    }

    /// Descriptors per attempt for the identity check (the SPEC's budget): at the start, half-way
    /// through the challenges and at the end, so a face swapped in at any point is sampled. Two
    /// suffice when the person does not face the camera again before `identityWaitMs` is over.
    public static let identitySamples = 3
    /// Minimum time between identity samples (ms).
    public static let identitySpacingMs = 500
    /// How long the engine waits for a face looking at the camera for the last identity sample (ms).
    public static let identityWaitMs = 2000

    /// The policy in force.
    public let policy: LivenessPolicy
    /// The drawn plan.
    public let plan: ChallengePlan
    /// Challenge state, for live answers.
    public private(set) var tracker: ChallengeTracker
    /// When the reflection sequence started on the capture clock, once it has.
    public private(set) var reflectionStartMs: Int?
    /// The reflection sequence as shown, once it started: the plan's colours, each held for the
    /// step `reflectionStepMs` chose (the plan's in a state stored before steps were chosen).
    public var reflectionSequence: ReflectionSequence? {
        guard reflectionStartMs != nil, let planned = plan.reflection else { return nil }
        return ReflectionSequence(colors: planned.colors, stepMs: shownStepMs ?? planned.stepMs)
    }
    /// The frame best suited for the audit image so far.
    public private(set) var bestFrame: AuditFrame?

    private var timing = FrameTimingCheck()
    private var singleFace = SingleFaceCheck()
    private var planar = PlanarMotionCheck()
    private var identity = IdentityCheck()
    private var screen = ScreenPatternCheck()
    private var reflection: ReflectionCheck?
    private var guidance: [FeedbackCode: Int] = [:]
    private var frames = 0
    /// Frames observed so far.
    public var frameCount: Int { frames }
    private var identityTaken = 0
    private var lastIdentityMs: Int?
    private var endedAtMs: Int?   // when the challenges and the reflection were over
    private var lastTimestampMs: Int?
    private var pendingColors: [TimedColor] = []   // the last frames before the reflection
    /// Capture-clock intervals between the last frames (ms), oldest first. Optional: states
    /// stored before it existed decode without it.
    private var recentIntervalsMs: [Int]?
    private var shownStepMs: Int?
    private static let intervalsKept = 8
    /// Since when the head has been turned or bowed between the last motion and the end of the
    /// colours; whether it stayed so for `ChallengeTracker.confirmMs` (`stillness`; optional:
    /// states stored before decode without them).
    private var turnedSinceMs: Int?
    private var movedAfterMotions: Bool?
    /// Whether the last frame's single face was in the neutral pose (optional, as above).
    private var lastFaceNeutral: Bool?

    /// An engine for a validated policy and its plan.
    public init(policy: LivenessPolicy, plan: ChallengePlan) {
        self.policy = policy
        self.plan = plan
        tracker = ChallengeTracker(plan: plan, policy: policy)
    }

    /// Whether the reflection sequence should start now: motions done (or none), not yet
    /// started, the pace of frames known (`reflectionStepMs` sets the step by it), and the head
    /// back to neutral or a second past the last motion. A turn passes half-way back, and the
    /// frames before the colours are their baseline: a head still turning would tint it.
    public var reflectionDue: Bool {
        guard plan.reflection != nil, reflectionStartMs == nil, tracker.passed, (recentIntervalsMs?.count ?? 0) >= Self.intervalsKept / 2 else {
            return false
        }
        guard lastFaceNeutral == false, let passedAt = tracker.challenges.last?.endedAtMs, let last = lastTimestampMs else { return true }
        return last - passedAt >= Self.reflectionWaitForNeutralMs
    }

    /// How long after the last motion the reflection waits for a neutral head (ms).
    public static let reflectionWaitForNeutralMs = 1000

    /// The longest a reflection colour is held (ms): half a second is the plan's step, and the
    /// whole sequence is known to the page a second before it starts anyway.
    public static let maxReflectionStepMs = 1000

    /// How long each reflection colour shows: the plan's step, or longer when frames reach the
    /// engine further apart than a 5 fps camera's, so that a step still gets as many frames after
    /// its settle (`ReflectionCheck.settleMs`) as at 5 fps, 1.75 at the median interval, to
    /// `maxReflectionStepMs`. The page uploads one frame at a time, so a server that answers
    /// slowly (a busy machine) receives frames only as fast as it answers: at 350 ms a frame, a
    /// half-second step got one frame, and a live person's single noisy frame pointing to another
    /// colour failed the check.
    public static func reflectionStepMs(planned: Int, intervalsMs: [Int]) -> Int {
        guard !intervalsMs.isEmpty else { return planned }
        let median = intervalsMs.sorted()[intervalsMs.count / 2]
        let needed = ReflectionCheck.settleMs + median * 7 / 4
        return max(planned, min(Self.maxReflectionStepMs, (needed + 50) / 100 * 100))
    }

    /// Starts the reflection sequence at `timestampMs` (capture clock), as the page shows it,
    /// with its step set by the pace frames arrived at so far (`reflectionStepMs`).
    public mutating func startReflection(atMs timestampMs: Int) {
        guard let planned = plan.reflection, reflectionStartMs == nil else { return }
        let sequence = ReflectionSequence(colors: planned.colors,
                                          stepMs: Self.reflectionStepMs(planned: planned.stepMs, intervalsMs: recentIntervalsMs ?? []))
        reflectionStartMs = timestampMs
        shownStepMs = sequence.stepMs
        var check = ReflectionCheck(sequence: sequence, startMs: timestampMs, strict: policy.reflectionStrict)
        for pending in pendingColors { check.observe(pending.color, at: pending.timestampMs) }   // the baseline frames
        pendingColors = []
        reflection = check
    }

    /// Whether all active parts are over, so the decision can be made: the challenges, the
    /// reflection sequence, and the last identity sample (or the wait for it).
    public var finished: Bool {
        guard tracker.finished else { return false }
        guard tracker.passed else { return true }
        guard let ended = endedAtMs, let last = lastTimestampMs else { return false }
        return identityTaken >= Self.identitySamples || last - ended >= Self.identityWaitMs
    }

    /// Whether the challenges and the reflection sequence are over, at `timestampMs`.
    private func activePartsOver(at timestampMs: Int) -> Bool {
        guard tracker.passed else { return false }
        guard plan.reflection != nil else { return true }
        guard let start = reflectionStartMs, let sequence = reflectionSequence else { return false }
        return timestampMs >= start + sequence.colors.count * sequence.stepMs + ReflectionCheck.lagsMs.last!
    }

    /// How many identity samples should have been taken by now: one from the start, the second
    /// once half the challenges passed (the only one, or the reflection started when there are
    /// none), the third once the challenges and the reflection are over.
    private var identitySamplesDue: Int {
        if endedAtMs != nil { return 3 }
        let passed = tracker.challenges.count { $0.state == .passed }
        let halfWay = tracker.challenges.isEmpty ? reflectionStartMs != nil : passed >= max(1, tracker.challenges.count / 2)
        return halfWay ? 2 : 1
    }

    /// Whether the caller should compute this frame's descriptor and pass it to `observe`
    /// (`CaptureAttempt` aligns a tracked face's chip on a detection around it first).
    public func wantsDescriptor(for frame: LivenessFrame) -> Bool {
        guard identityTaken < identitySamplesDue, !tracker.finished || tracker.passed, frame.faces.count == 1 else { return false }
        let face = frame.faces[0]
        guard !face.isDoubtful, tracker.placement.guidance(for: frame.faces) == nil, abs(face.pose.yaw) < 15, abs(face.pose.pitch) < 15 else {
            return false
        }
        if identityTaken == 0 {
            // The first sample is what a reference photo or a document's portrait is compared
            // with: a detected, resting face.
            guard face.source == .detected, tracker.isResting(face) else { return false }
        } else {
            // Later ones only show the same person is still there: any frame facing the camera
            // with open eyes will do. Real people keep talking, smile and hold a motion after
            // it passed; they do not rest on cue.
            guard tracker.isFacingCamera(face) else { return false }
        }
        guard let last = lastIdentityMs else { return true }
        return frame.timestampMs - last >= Self.identitySpacingMs
    }

    /// Feeds one frame (and its descriptor when `wantsDescriptor` asked for it).
    public mutating func observe(_ frame: LivenessFrame, descriptor: FaceDescriptor? = nil) -> TrackerUpdate {
        frames += 1
        if let last = lastTimestampMs, frame.timestampMs > last {
            recentIntervalsMs = Array(((recentIntervalsMs ?? []) + [frame.timestampMs - last]).suffix(Self.intervalsKept))
        }
        lastTimestampMs = max(lastTimestampMs ?? frame.timestampMs, frame.timestampMs)
        timing.observe(timestampMs: frame.timestampMs, contentHash: frame.contentHash)
        singleFace.observe(faceCount: frame.faces.count)
        if let face = frame.faces.first, frame.faces.count == 1 {
            let suitability = Self.auditSuitability(face, placed: tracker.placement.guidance(for: frame.faces) == nil)
            if suitability > (bestFrame?.suitability ?? 0) { bestFrame = AuditFrame(timestampMs: frame.timestampMs, suitability: suitability) }
            planar.observe(face)
            if let pattern = frame.screenPattern { screen.observe(periodicity: pattern) }
            reflection?.observe(face.color, at: frame.timestampMs)
            lastFaceNeutral = tracker.isNeutral(face)
            if plan.reflection != nil, tracker.passed, endedAtMs == nil {
                if tracker.isTurnedOrBowed(face) {
                    let since = turnedSinceMs ?? frame.timestampMs
                    turnedSinceMs = since
                    if frame.timestampMs - since >= ChallengeTracker.confirmMs { movedAfterMotions = true }
                } else {
                    turnedSinceMs = nil
                }
            }
            if reflection == nil, plan.reflection != nil {
                // Colour before the sequence: kept as the reflection baseline once it starts.
                pendingColors.append(TimedColor(color: face.color, timestampMs: frame.timestampMs))
                if pendingColors.count > 10 { pendingColors.removeFirst() }
            }
        }
        if let descriptor {
            identity.observe(descriptor)
            identityTaken += 1
            lastIdentityMs = frame.timestampMs
        }
        let update = tracker.observe(frame.faces, at: frame.timestampMs)
        if let code = update.guidance { guidance[code, default: 0] += 1 }
        if endedAtMs == nil, activePartsOver(at: frame.timestampMs) { endedAtMs = frame.timestampMs }
        return update
    }

    /// How well a face suits the audit image: well placed, sharp, frontal, eyes open.
    static func auditSuitability(_ face: FaceObservation, placed: Bool) -> Double {
        guard placed else { return 0 }
        let sharp = min(1, face.quality.sharpness / 200)
        let frontal = max(0, 1 - abs(face.pose.yaw) / 45) * max(0, 1 - abs(face.pose.pitch) / 45)
        let eyes = min(1, (face.eyes.left + face.eyes.right) / 2 / 0.25)
        return sharp * frontal * eyes
    }

    /// The identity check's verdict. An attempt whose challenges failed before the second sample
    /// was due could not show a change, and saying so would blame the wrong thing.
    private var identityResult: CheckResult {
        guard identityTaken < 2, tracker.finished, !tracker.passed else { return identity.result }
        return CheckResult(passed: true, score: 0.5, reason: "challenges_not_passed")
    }

    /// The first identity sample, once taken: the person's resting face.
    public var identityDescriptor: FaceDescriptor? { identity.firstDescriptor }

    /// The verdict on everything seen so far and on `evidence`: the one decision the server
    /// signs, the evaluation counts and `vigil liveness` prints.
    public func decide(evidence: SessionEvidence = SessionEvidence()) -> LivenessDecision {
        var checks: [String: CheckResult] = [
            "frameTiming": timing.result, "singleFace": singleFace.result, "planarMotion": planar.result,
            "identity": identityResult, "screenPattern": screen.result,
        ]
        if plan.reflection != nil {
            checks["reflection"] = reflection?.result ?? CheckResult(passed: false, score: 0, feedback: .holdStill, reason: "reflection_not_shown")
        } else if policy.type.includesReflection {
            // A plan without the sequence its policy asks for (a hand-made session file) never passes.
            checks["reflection"] = CheckResult(passed: false, score: 0, feedback: .holdStill, reason: "reflection_not_planned")
        }
        if plan.reflection != nil, tracker.passed {
            checks["stillness"] = movedAfterMotions == true
                ? CheckResult(passed: false, score: 0, feedback: .holdStill, reason: "head_moved") : CheckResult(passed: true, score: 1)
        }
        if let clock = evidence.captureClock { checks["captureClock"] = clock.result }
        if let elsewhere = evidence.framesSeenElsewhere {
            let limit = SessionEvidence.framesSeenElsewhereAllowed
            let allowed = max(limit.count, Int(limit.share * Double(frames)))
            checks["crossSessionFrames"] = elsewhere <= allowed ? CheckResult(passed: true, score: 1)
                : CheckResult(passed: false, score: 0, feedback: .deviceIssue, reason: "frames_seen_in_other_sessions")
        }
        var match: FaceMatch?
        if let reference = evidence.reference { (match, checks["match"]) = compare(reference) }
        var documentMatch: FaceMatch?
        if let step = policy.document {
            switch evidence.document {
            case nil where step.required:
                checks["document"] = CheckResult(passed: false, score: 0, feedback: .documentIssue, reason: "document_missing")
            case nil:
                break
            case let document?:
                checks["document"] = document.valid ? CheckResult(passed: true, score: 1)
                    : CheckResult(passed: false, score: 0, feedback: .documentIssue, reason: "document_invalid")
                if step.matchFace, let portrait = document.portrait {
                    (documentMatch, checks["documentMatch"]) = compare(portrait)
                } else if step.matchFace {
                    checks["documentMatch"] = CheckResult(passed: false, score: 0, feedback: .documentIssue, reason: "no_portrait")
                }
            }
        }
        if policy.refuseVirtualCamera {
            checks["camera"] = evidence.virtualCamera
                ? CheckResult(passed: false, score: 0, feedback: .deviceIssue, reason: "virtual_camera") : CheckResult(passed: true, score: 1)
        }
        return LivenessDecision.decide(challenges: tracker.challenges, checks: checks, guidance: guidance, frames: frames, match: match,
                                       documentMatch: documentMatch)
    }

    /// A photo's face (a reference, a document's portrait) against the session's first resting
    /// live face: the comparison and its check, which fails without a live face.
    private func compare(_ photo: FaceDescriptor) -> (FaceMatch?, CheckResult) {
        guard let live = identityDescriptor else {
            return (nil, CheckResult(passed: false, score: 0, feedback: .faceNotFound, reason: "no_live_face"))
        }
        let compared = FaceMatcher().compare(photo, live)
        return (compared, CheckResult(passed: compared.matched, score: compared.similarity, feedback: .faceMismatch,
                                      reason: compared.matched ? nil : "face_mismatch"))
    }
}
