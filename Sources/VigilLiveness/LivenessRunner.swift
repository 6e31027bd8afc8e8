import VigilCore
import VigilFace

/// Runs decoded frames through face analysis and a `LivenessSession` (inside `CaptureAttempt`,
/// the frame loop shared by the server, the evaluation and `vigil liveness`). One runner per
/// session; not for concurrent use. It holds no analyzer: each frame is analysed with the one
/// its caller borrowed for that call.
public struct LivenessRunner {
    /// A full detection (which also sees extra faces) at least this often while tracking (ms of
    /// capture time, so that a 5 fps camera is not tracked twice as long between detections)...
    public static let detectionIntervalMs = 1000
    /// ...and at most every this many frames, so that frames spread out by a busy server or a
    /// slow network do not each cost a full detection and make the server busier still.
    public static let minFramesBetweenDetections = 5
    /// Frames further apart than this (ms) are detected afresh around the face: tracking follows
    /// small motions, and a camera slower than 7.5 fps, a slow network or a busy server can leave
    /// a head far from where it was (a turn moves it 10-15 degrees between frames at 5 fps, and
    /// the landmark predictor then draws a face where the head used to be, mirrored or bowed).
    public static let maxTrackingGapMs = 150
    /// The screen-pattern spectrum is measured every this many frames.
    public static let screenPatternInterval = 3

    /// The engine state.
    public private(set) var session: LivenessSession
    private var previous: FaceObservation?
    private var lastDetection: (ms: Int, frame: Int)?
    private var lastFrameMs: Int?
    private var frames = 0
    private var alignmentRetryMs = Int.min
    /// After a tracked face found no detection to align its descriptor on, the next try waits
    /// this long (ms), so a face the detector misses costs one search, not one a frame.
    static let alignmentRetryGapMs = 300
    /// The frame chosen for the audit image, kept decoded until the decision.
    public private(set) var bestImage: Image?
    /// The last frame as the session saw it, with its descriptor if one was taken (lets callers
    /// replay the observations, for example to time the engine apart from face analysis).
    public private(set) var lastObservation: (frame: LivenessFrame, descriptor: FaceDescriptor?)?

    /// A runner for a session.
    public init(session: LivenessSession) {
        self.session = session
    }

    /// What another process needs to continue the session: the engine and the frame count.
    /// The tracked face and the decoded best image are not kept: the next frame runs a full
    /// detection, and the caller keeps the best frame's bytes if it wants them.
    public struct State: Codable, Sendable {
        /// The engine.
        public var session: LivenessSession
        /// Frames processed.
        public var frames: Int

        /// The state of `session` after `frames` frames.
        public init(session: LivenessSession, frames: Int = 0) {
            self.session = session
            self.frames = frames
        }
    }

    /// The state to persist after a frame batch.
    public var state: State { State(session: session, frames: frames) }

    /// A runner continuing from a persisted state.
    public init(state: State) {
        session = state.session
        frames = state.frames
    }

    /// Analyses one frame with `analyzer` and feeds it to the session.
    public mutating func process(_ image: Image, timestampMs: Int, contentHash: UInt64, with analyzer: FaceAnalyzer) -> TrackerUpdate {
        frames += 1
        var faces: [FaceObservation] = []
        let detectionDue = lastDetection.map {
            timestampMs - $0.ms >= Self.detectionIntervalMs && frames - $0.frame >= Self.minFramesBetweenDetections
        } ?? true
        let farApart = lastFrameMs.map { timestampMs - $0 > Self.maxTrackingGapMs } ?? true
        lastFrameMs = timestampMs
        if previous == nil || detectionDue {
            faces = analyzer.detect(in: image)
            lastDetection = (timestampMs, frames)
        }
        // A full detection keeps only confident faces and misses a head turned far; a search
        // around where the face was keeps weaker detections there and still finds it.
        if faces.isEmpty, farApart || detectionDue, let previous, let found = analyzer.redetect(in: image, near: previous, spread: 2.2) {
            faces = [found]
        }
        // A turned head the frontal detector misses stays tracked (until the tracker gives up).
        if faces.isEmpty, let previous, let tracked = analyzer.track(in: image, previous: previous) { faces = [tracked] }
        previous = faces.count == 1 ? faces[0] : nil
        // Moire is measured every few frames: the spectrum costs about a millisecond.
        let pattern = faces.count == 1 && frames % Self.screenPatternInterval == 0
            ? ScreenPatternMeter.periodicity(in: image, box: faces[0].box) : nil
        let frame = LivenessFrame(timestampMs: timestampMs, faces: faces, contentHash: contentHash, screenPattern: pattern)
        var descriptor: FaceDescriptor?
        if session.wantsDescriptor(for: frame), let face = faces.first, timestampMs >= alignmentRetryMs {
            // Tracked landmarks lag a head just back from a motion, and a chip aligned on them reads
            // as another person (distances of 0.64-0.75 against 0.07-0.16 for the same person's
            // detected faces): a tracked face is aligned on a detection around it.
            if let aligned = face.source == .detected ? face : analyzer.redetect(in: image, near: face) {
                descriptor = try? analyzer.descriptor(for: aligned, in: image)
            } else {
                alignmentRetryMs = timestampMs + Self.alignmentRetryGapMs
            }
        }
        let update = session.observe(frame, descriptor: descriptor)
        lastObservation = (frame, descriptor)
        if session.bestFrame?.timestampMs == timestampMs { bestImage = image }
        return update
    }

    /// The audit image: the best frame as JPEG, when any frame held a well-placed face.
    public func auditImage(quality: Int = 85) -> [UInt8]? { bestImage?.jpegData(quality: quality) }

    /// Starts the reflection sequence at `timestampMs`.
    public mutating func startReflection(atMs timestampMs: Int) {
        session.startReflection(atMs: timestampMs)
    }

    /// The decision on everything processed so far and on `evidence` (see `LivenessSession.decide(evidence:)`).
    public func decide(evidence: SessionEvidence = SessionEvidence()) -> LivenessDecision { session.decide(evidence: evidence) }
}

/// FNV-1a, 64 bits: a cheap content hash for repeated-frame detection (not a security boundary).
public func contentHash(_ bytes: some Sequence<UInt8>) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in bytes {
        hash ^= UInt64(byte)
        hash = hash &* 0x0000_0100_0000_01B3
    }
    return hash
}
