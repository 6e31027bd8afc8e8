import Foundation
import VigilCore
import VigilFace

/// One attempt at liveness: its frame loop around one `LivenessEngine`, the same in the server,
/// the synthetic evaluation and `vigil liveness`, so that all three measure the decision the
/// server signs. Each frame is analysed (detection, or tracking between detections) with the
/// analyzer its caller lends for that call, observed by the engine, and its arrival goes to the
/// capture clock; once the motions are done the reflection sequence is scheduled
/// `reflectionNoticeMs` after that frame. Not for concurrent use.
public struct CaptureAttempt {
    /// How long after the frame that finished the motions the reflection colours start: the
    /// page announces the flashes for about a second before they begin.
    public static let reflectionNoticeMs = 1000
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
    /// After a tracked face found no detection to align its descriptor on, the next try waits
    /// this long (ms), so a face the detector misses costs one search, not one a frame.
    static let alignmentRetryGapMs = 300

    /// The engine: challenges, passive checks and the decision.
    public private(set) var engine: LivenessEngine
    /// The capture clock against arrival times; nil when arrivals are not checked.
    public private(set) var clock: CaptureClockCheck?
    private var previous: FaceObservation?
    private var lastDetection: (ms: Int, frame: Int)?
    private var lastFrameMs: Int?
    private var frames = 0
    private var alignmentRetryMs = Int.min
    /// The last frame as the engine saw it, with its descriptor if one was taken (lets callers
    /// trace or replay the observations, for example to time the engine apart from face analysis).
    public private(set) var lastObservation: (frame: LivenessFrame, descriptor: FaceDescriptor?)?

    /// A new attempt on `engine`; `checksArrivals` keeps a capture clock for `captureClock`.
    public init(engine: LivenessEngine, checksArrivals: Bool) {
        self.engine = engine
        clock = checksArrivals ? CaptureClockCheck() : nil
    }

    /// What another process needs to continue the attempt: the engine and the frame count.
    /// The tracked face is not kept: the next frame runs a full detection.
    public struct State: Codable, Sendable {
        /// The engine.
        public var engine: LivenessEngine
        /// Frames processed.
        public var frames: Int

        /// The state of `engine` after `frames` frames.
        public init(engine: LivenessEngine, frames: Int = 0) {
            self.engine = engine
            self.frames = frames
        }

        // The key under which states stored by earlier versions keep the engine.
        private enum CodingKeys: String, CodingKey { case engine = "session", frames }
    }

    /// The state to persist after a frame batch (the clock is persisted beside it).
    public var state: State { State(engine: engine, frames: frames) }

    /// An attempt continuing from a persisted state and clock.
    public init(state: State, clock: CaptureClockCheck?) {
        engine = state.engine
        frames = state.frames
        self.clock = clock
    }

    /// Analyses a frame captured at `captureMs` (the page's clock) that reached the server at
    /// `arrival` (when known) with `analyzer`, feeds it to the engine, and schedules the
    /// reflection sequence when the motions are done.
    public mutating func process(_ image: Image, captureMs: Int, arrival: Date?, contentHash: UInt64,
                                 with analyzer: some FaceAnalyzing) -> TrackerUpdate {
        let update = observe(image, timestampMs: captureMs, contentHash: contentHash, with: analyzer)
        if let arrival { clock?.observe(captureMs: captureMs, arrival: arrival) }
        if engine.reflectionDue { engine.startReflection(atMs: captureMs + Self.reflectionNoticeMs) }
        return update
    }

    /// The one decision on the frames so far, with the capture clock and `evidence`.
    public func decide(evidence: SessionEvidence = SessionEvidence()) -> LivenessDecision {
        var evidence = evidence
        evidence.captureClock = clock
        return engine.decide(evidence: evidence)
    }

    private mutating func observe(_ image: Image, timestampMs: Int, contentHash: UInt64, with analyzer: some FaceAnalyzing) -> TrackerUpdate {
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
        if engine.wantsDescriptor(for: frame), let face = faces.first, timestampMs >= alignmentRetryMs {
            // Tracked landmarks lag a head just back from a motion, and a chip aligned on them reads
            // as another person (distances of 0.64-0.75 against 0.07-0.16 for the same person's
            // detected faces): a tracked face is aligned on a detection around it.
            if let aligned = face.source == .detected ? face : analyzer.redetect(in: image, near: face) {
                descriptor = try? analyzer.descriptor(for: aligned, in: image)
            } else {
                alignmentRetryMs = timestampMs + Self.alignmentRetryGapMs
            }
        }
        let update = engine.observe(frame, descriptor: descriptor)
        lastObservation = (frame, descriptor)
        return update
    }
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
