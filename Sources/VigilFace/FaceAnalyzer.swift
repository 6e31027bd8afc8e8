import CDlibFace
import VigilCore

/// Tunable parts of detection and tracking.
public struct DetectionOptions: Sendable, Hashable {
    /// Smallest face to find, as a fraction of the image's shorter side. Detection runs on a copy
    /// downscaled so that such a face just fills the detector's 80-pixel window.
    public var minFaceFraction: Double
    /// Detections scoring below this are dropped (HOG finds weak false positives near 0).
    public var minScore: Double
    /// After this many frames without a real detection, tracking gives up and asks for detection.
    public var maxTrackedFrames: Int

    /// Defaults for camera frames: faces of at least 30% of the short side, score >= 0.2, 30 frames.
    public init(minFaceFraction: Double = 0.3, minScore: Double = 0.2, maxTrackedFrames: Int = 30) {
        self.minFaceFraction = minFaceFraction
        self.minScore = minScore
        self.maxTrackedFrames = maxTrackedFrames
    }

    /// For still photos that may hold small faces.
    public static let photos = DetectionOptions(minFaceFraction: 0.08)
}

/// Why a descriptor could not be computed.
public enum FaceError: Error, Equatable, Sendable {
    /// dlib failed inside the encoder.
    case encoderFailed
    /// The observation does not have 68 landmarks.
    case invalidLandmarks
}

/// Turns images into `FaceObservation`s and descriptors.
///
/// Not safe for concurrent use: each instance owns a HOG detector and a ResNet copy whose
/// evaluation mutates internal buffers. Use one per thread, or borrow them from an `AnalyzerPool`.
public final class FaceAnalyzer: @unchecked Sendable {
    // Invariant making this Sendable: instances may move between threads but are used by one at a
    // time (documented above, enforced by AnalyzerPool); `models` is itself thread-safe.
    /// The shared read-only models.
    public let models: FaceModels
    /// Detection and tracking settings.
    public var options: DetectionOptions
    private let detector: OpaquePointer
    private let encoder: OpaquePointer
    private let poseEstimator: HeadPoseEstimator
    private static let detectorWindow = 80.0

    /// Creates an analyzer over shared models (~25 MB of its own).
    public init(models: FaceModels, options: DetectionOptions = DetectionOptions()) throws(ModelError) {
        guard let detector = vf_detector_create() else { throw .allocationFailed("a HOG detector") }
        guard let encoder = vf_encoder_clone(models.encoderPrototype) else {
            vf_detector_destroy(detector)
            throw .allocationFailed("a face encoder")
        }
        self.models = models
        self.options = options
        self.detector = detector
        self.encoder = encoder
        poseEstimator = HeadPoseEstimator(meanFace: models.meanFace)
    }

    deinit {
        vf_detector_destroy(detector)
        vf_encoder_destroy(encoder)
    }

    /// Full detection: every face above `minScore`, largest first.
    public func detect(in image: Image) -> [FaceObservation] {
        let shortSide = Double(min(image.width, image.height))
        let scale = min(1, Self.detectorWindow / max(1, options.minFaceFraction * shortSide))
        return runDetector(on: image.grayscale(scale: scale))
            .sorted { $0.box.area > $1.box.area }
            .map { observe(image, box: $0.box, score: $0.score, source: .detected, framesSinceDetection: 0) }
    }

    /// Follows `previous` into this frame: a cheap detection around the previous face region, and
    /// when that finds nothing (a turned head), landmarks predicted from the previous region.
    /// Returns nil when the face is lost or tracked too long without a detection.
    public func track(in image: Image, previous: FaceObservation) -> FaceObservation? {
        let region = previous.box.scaled(by: 1.8)
        let scale = min(1, 100 / max(previous.box.width, 1))
        let candidates = runDetector(on: image.grayscale(region: region, scale: scale))
        if let best = candidates.filter({ $0.box.overlap(with: previous.box) >= 0.3 }).max(by: { $0.score < $1.score }) {
            return observe(image, box: best.box, score: best.score, source: .detected, framesSinceDetection: 0)
        }
        guard previous.framesSinceDetection < options.maxTrackedFrames else { return nil }
        // Move the previous box with the landmarks: predict once, shift and rescale, predict again.
        let first = predictLandmarks(image, box: previous.box)
        guard let before = Rect.bounding(previous.landmarks), let after = Rect.bounding(first), before.width > 0 else {
            return nil
        }
        let ratio = after.width / before.width
        let box = Rect(x: previous.box.midX + (after.midX - before.midX) - previous.box.width * ratio / 2,
                       y: previous.box.midY + (after.midY - before.midY) - previous.box.height * ratio / 2,
                       width: previous.box.width * ratio, height: previous.box.height * ratio)
        let frame = Rect(x: 0, y: 0, width: Double(image.width), height: Double(image.height))
        guard let visible = box.intersection(frame), visible.area >= 0.6 * box.area else { return nil }
        return observe(image, box: box, score: previous.score, source: .tracked,
                       framesSinceDetection: previous.framesSinceDetection + 1)
    }

    /// The 128-d descriptor of a face, from a 150x150 chip aligned on its landmarks.
    public func descriptor(for face: FaceObservation, in image: Image) throws(FaceError) -> FaceDescriptor {
        guard face.landmarks.count == 68 else { throw .invalidLandmarks }
        let points = face.landmarks.flatMap { [Float($0.x), Float($0.y)] }
        var values = [Float](repeating: 0, count: FaceDescriptor.dimension)
        let status = image.rgb.withUnsafeBufferPointer { rgb in
            vf_encoder_compute(encoder, rgb.baseAddress, image.width, image.height, points, 68, &values)
        }
        guard status == VF_OK else { throw .encoderFailed }
        return FaceDescriptor(values)
    }

    private func runDetector(on gray: GrayImage) -> [(box: Rect, score: Double)] {
        let capacity = 16
        var boxes = [vf_rect](repeating: vf_rect(), count: capacity)
        var scores = [Double](repeating: 0, count: capacity)
        let found = gray.pixels.withUnsafeBufferPointer { pixels in
            vf_detector_run(detector, pixels.baseAddress, gray.width, gray.height, 0, 0, &boxes, &scores, Int32(capacity))
        }
        guard found > 0 else { return [] }
        return (0..<min(Int(found), capacity)).compactMap { i in
            guard scores[i] >= options.minScore else { return nil }
            let r = boxes[i]
            let local = Rect(x: Double(r.left), y: Double(r.top),
                             width: Double(r.right - r.left + 1), height: Double(r.bottom - r.top + 1))
            return (gray.toSource(local), scores[i])
        }
    }

    private func predictLandmarks(_ image: Image, box: Rect) -> [Point2D] {
        var points = [Float](repeating: 0, count: 136)
        let rect = vf_rect(left: Int(box.x.rounded()), top: Int(box.y.rounded()),
                           right: Int((box.x + box.width).rounded()) - 1, bottom: Int((box.y + box.height).rounded()) - 1)
        _ = image.rgb.withUnsafeBufferPointer { rgb in
            vf_shape_predict(models.shapePredictor, rgb.baseAddress, image.width, image.height, rect, &points)
        }
        return (0..<68).map { Point2D(x: Double(points[2 * $0]), y: Double(points[2 * $0 + 1])) }
    }

    private func observe(_ image: Image, box: Rect, score: Double, source: FaceObservation.Source,
                         framesSinceDetection: Int) -> FaceObservation {
        let landmarks = predictLandmarks(image, box: box)
        return FaceObservation(
            box: box, score: score, landmarks: landmarks, pose: poseEstimator.pose(for: landmarks),
            eyes: FaceGeometry.eyes(landmarks), mouth: FaceGeometry.mouth(landmarks),
            quality: FaceQualityMeter.measure(image, box: box),
            placement: FaceGeometry.placement(box: box, landmarks: landmarks, width: image.width, height: image.height),
            source: source, framesSinceDetection: framesSinceDetection)
    }
}
