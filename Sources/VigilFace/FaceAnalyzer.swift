import CDlibFace
import VigilCore

/// Tunable parts of detection and tracking.
public struct DetectionOptions: Sendable, Hashable {
    /// Smallest face to find, as a fraction of the image's shorter side. With the mesh, faces of
    /// a fifth or more are found by MediaPipe's short-range detector, smaller ones by HOG; HOG
    /// runs on a copy downscaled so that such a face just fills its 80-pixel window.
    public var minFaceFraction: Double
    /// HOG detections scoring below this are dropped (HOG finds weak false positives near 0).
    public var minScore: Double
    /// A HOG search around a face being followed keeps detections down to this score: a head
    /// turned past what the frontal detector scores well still scores there, and a false
    /// positive must also overlap where the face just was.
    public var minScoreNearFace: Double
    /// Tracking re-anchors on a detection around the face every this many frames.
    public var redetectInterval: Int
    /// After this many frames without a real detection, tracking gives up and asks for detection.
    public var maxTrackedFrames: Int

    /// Defaults for camera frames: faces of at least 30% of the short side, score >= 0.2 (>= -0.3
    /// around a followed face), a detection around the tracked face every 5 frames, at most 30
    /// frames without one.
    public init(minFaceFraction: Double = 0.3, minScore: Double = 0.2, minScoreNearFace: Double = -0.3, redetectInterval: Int = 5,
                maxTrackedFrames: Int = 30) {
        self.minFaceFraction = minFaceFraction
        self.minScore = minScore
        self.minScoreNearFace = min(minScore, minScoreNearFace)
        self.redetectInterval = max(1, redetectInterval)
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
public final class FaceAnalyzer: FaceAnalyzing, @unchecked Sendable {
    // Invariant making this Sendable: instances may move between threads but are used by one at a
    // time (documented above, enforced by AnalyzerPool); `models` is itself thread-safe.
    /// The shared read-only models.
    public let models: FaceModels
    /// Detection and tracking settings.
    public var options: DetectionOptions
    private let detector: OpaquePointer
    private let encoder: OpaquePointer
    private let poseEstimator: HeadPoseEstimator
    /// MediaPipe's mesh, when the models name it for landmarks (this analyzer's own copy).
    private let mesh: FaceMesh?
    /// MediaPipe's short-range detector, which finds camera faces for the mesh (with the mesh only).
    private let blazeFace: BlazeFaceDetector?
    /// Head pose from the mesh's face points (not its irises) and its canonical face.
    private let meshPoseEstimator: HeadPoseEstimator?
    private static let detectorWindow = 80.0

    /// Creates an analyzer over shared models (~25 MB of its own).
    public init(models: FaceModels, options: DetectionOptions = DetectionOptions()) throws(ModelError) {
        guard let detector = vf_detector_clone(models.detectorPrototype) else { throw .allocationFailed("a HOG detector") }
        guard let encoder = vf_encoder_clone(models.encoderPrototype) else {
            vf_detector_destroy(detector)
            throw .allocationFailed("a face encoder")
        }
        do {
            mesh = models.landmarkModel == .mesh ? try FaceMesh(directory: models.directory) : nil
            blazeFace = models.landmarkModel == .mesh ? try BlazeFaceDetector(directory: models.directory) : nil
        } catch {
            vf_detector_destroy(detector)
            vf_encoder_destroy(encoder)
            throw error
        }
        self.models = models
        self.options = options
        self.detector = detector
        self.encoder = encoder
        poseEstimator = HeadPoseEstimator(meanFace: models.meanFace)
        meshPoseEstimator = models.canonicalFace.map { HeadPoseEstimator(meanFace: $0.points, weights: $0.weights) }
    }

    deinit {
        vf_detector_destroy(detector)
        vf_encoder_destroy(encoder)
    }

    /// Full detection: every face above `minScore`, largest first, down to `minFaceFraction` of
    /// the short side (the options' value unless given).
    public func detect(in image: Image, minFaceFraction: Double?) -> [FaceObservation] {
        let shortSide = Double(min(image.width, image.height))
        let fraction = minFaceFraction ?? options.minFaceFraction
        if let blazeFace, fraction >= Self.blazeFaceSmallestFraction {
            let smallest = Self.blazeFaceSmallestShare * fraction * shortSide
            return ((try? blazeFace.detect(in: image)) ?? [])
                .filter { max($0.box.width, $0.box.height) >= smallest }
                .compactMap { observe(image, $0) }
                .sorted { $0.box.area > $1.box.area }
        }
        let scale = min(1, Self.detectorWindow / max(1, fraction * shortSide))
        return runDetector(on: image.grayscale(scale: scale), minScore: options.minScore)
            .sorted { $0.box.area > $1.box.area }
            .compactMap { observe(image, box: $0.box, score: $0.score, source: .detected, framesSinceDetection: 0) }
    }

    /// A detection around `previous` only: the most probable face in a region `spread` times its
    /// box that overlaps it, or nil. With the mesh the short-range detector searches that region
    /// alone; HOG searches it at about 100 pixels a face (a fraction of a full detection's cost).
    public func redetect(in image: Image, near previous: FaceObservation, spread: Double) -> FaceObservation? {
        if let blazeFace {
            let detections = (try? blazeFace.detect(in: image, area: previous.box.scaled(by: spread))) ?? []
            return detections.lazy
                .compactMap { self.observe(image, $0) }
                .first { $0.box.overlap(with: previous.box) >= 0.3 }
        }
        let scale = min(1, 100 / max(previous.box.width, 1))
        let candidates = runDetector(on: image.grayscale(region: previous.box.scaled(by: spread), scale: scale), minScore: options.minScoreNearFace)
        guard let best = candidates.filter({ $0.box.overlap(with: previous.box) >= 0.3 }).max(by: { $0.score < $1.score })
        else { return nil }
        return observe(image, box: best.box, score: best.score, source: .detected, framesSinceDetection: 0)
    }

    /// Follows `previous` into this frame: landmarks predicted in the previous face region, which
    /// then moves with them, so a turned head that the frontal detector misses stays tracked.
    /// Every `redetectInterval` frames a cheap detection around the face re-anchors the region.
    /// Returns nil when the face leaves the frame or `maxTrackedFrames` pass without a detection.
    public func track(in image: Image, previous: FaceObservation) -> FaceObservation? {
        let frames = previous.framesSinceDetection + 1
        if frames % options.redetectInterval == 0, let found = redetect(in: image, near: previous) { return found }
        guard frames <= options.maxTrackedFrames else { return nil }
        if let mesh { return track(in: image, previous: previous, frames: frames, mesh: mesh) }
        // The box size is held: rebuilding it from landmark bounds shrinks the box on a turned
        // head (the jaw foreshortens) until tracking collapses. The first pass finds where the
        // face moved; when that is more than `settledShift` of the box, a second pass predicts in
        // the box centred there (a prediction costs about 2 ms, most frames of a still face need one).
        let previousCentre = Self.stableCentre(previous.landmarks)
        let offset = (x: previousCentre.x - previous.box.midX, y: previousCentre.y - previous.box.midY)
        func recentred(on landmarks: [Point2D]) -> Rect {
            let c = Self.stableCentre(landmarks)
            return Rect(x: c.x - offset.x - previous.box.width / 2, y: c.y - offset.y - previous.box.height / 2,
                        width: previous.box.width, height: previous.box.height)
        }
        var landmarks = predictLandmarks(image, box: previous.box)
        var box = recentred(on: landmarks)
        let shift = Point2D(x: box.midX, y: box.midY).distance(to: Point2D(x: previous.box.midX, y: previous.box.midY))
        if shift > Self.settledShift * previous.box.width {
            landmarks = predictLandmarks(image, box: box)
            box = recentred(on: landmarks)
        }
        guard let visible = box.intersection(image.bounds), visible.area >= 0.6 * box.area else { return nil }
        guard var tracked = observe(image, box: box, landmarks: landmarks, score: previous.score, source: .tracked,
                                    framesSinceDetection: frames, anchor: previous.anchor) else { return nil }
        // A head that turned or nodded fast between two frames leaves the predictor drawing a
        // face between where it was and where it is, tilted: such a shape is a doubtful track,
        // and so are the shapes tracked from it until the roll is back near the last trusted one.
        // A detection replaces it, around the face or, when the box has drifted off it, over the
        // frame where exactly one face is found; a head turned past the frontal detector stays
        // tracked, marked doubtful (dropping it would lose the face).
        let trustedRoll = previous.trustedRoll ?? previous.pose.roll
        if abs(tracked.pose.roll - previous.pose.roll) > Self.maxRollJump || abs(tracked.pose.roll - trustedRoll) > Self.maxRollJump {
            if let found = redetect(in: image, near: previous, spread: 2.2) { return found }
            let everywhere = detect(in: image)
            if everywhere.count == 1 { return everywhere[0] }
            tracked.trustedRoll = trustedRoll
        }
        return tracked
    }

    /// Tracking with the mesh, as MediaPipe tracks: the mesh is read in the region the previous
    /// frame's points call for, and the face is lost when the mesh no longer believes one is there.
    private func track(in image: Image, previous: FaceObservation, frames: Int, mesh: FaceMesh) -> FaceObservation? {
        guard let region = previous.meshRegion, let found = try? mesh.landmarks(in: image, region: region),
              found.presence >= Self.meshPresence else { return nil }
        guard let bounds = Rect.bounding(found.ibug68) else { return nil }
        let box = Rect(x: bounds.x + previous.anchor.x * bounds.width, y: bounds.y + previous.anchor.y * bounds.height,
                       width: previous.anchor.width * bounds.width, height: previous.anchor.height * bounds.height)
        guard let visible = box.intersection(image.bounds), visible.area >= 0.6 * box.area else { return nil }
        return observe(image, box: box, score: previous.score, source: .tracked, framesSinceDetection: frames,
                       anchor: previous.anchor, mesh: found)
    }

    /// The 68-point scheme's points in the order of dlib's 5-point scheme (checked against
    /// dlib's 5-point predictor on a fixture portrait: each within 2.3 pixels).
    static let fivePointScheme = [45, 42, 36, 39, 33]

    /// Below this smallest face (a fraction of the short side) detection runs dlib's HOG instead
    /// of the short-range detector, whose input of 128 pixels a side holds such faces too small.
    static let blazeFaceSmallestFraction = 0.2

    /// The smallest face the short-range detector keeps, as a share of `minFaceFraction`: the
    /// share HOG reaches at its window's scale (a face whose mesh box was 0.64 of it was found,
    /// 0.58 was not, measured on a frame of nodding-pigeon's shaking man padded larger), so that
    /// both keep the same faces. Its boxes are as wide as HOG's within 10%.
    static let blazeFaceSmallestShare = 0.6

    /// Below this presence the mesh says its region holds no face.
    static let meshPresence = 0.5

    /// The most a tracked face's roll may change from one frame to the next (degrees): people
    /// tilt their heads more slowly than that, doubtful tracks jump by 15-20.
    static let maxRollJump = 10.0

    /// A tracked face whose first landmark pass moves its box less than this fraction of the box
    /// width has settled: a second pass would predict in nearly the same box.
    static let settledShift = 0.02

    /// Centre of the eyes and nose, the landmarks that move most rigidly with the head.
    private static func stableCentre(_ landmarks: [Point2D]) -> Point2D {
        let indices = Array(27...47)
        let n = Double(indices.count)
        return Point2D(x: indices.reduce(0) { $0 + landmarks[$1].x } / n, y: indices.reduce(0) { $0 + landmarks[$1].y } / n)
    }

    /// The 128-d descriptor of a face, from a 150x150 chip aligned on its landmarks.
    /// With the mesh, the chip is aligned on 5 points, dlib's 5-point scheme (its order: the
    /// image-right eye's outer and inner corner, the image-left eye's, the nose's base), which
    /// the mesh's points for the 68-point scheme's 45, 42, 36, 39 and 33 stand for.
    public func descriptor(for face: FaceObservation, in image: Image) throws(FaceError) -> FaceDescriptor {
        guard face.landmarks.count == 68 else { throw .invalidLandmarks }
        let alignment = mesh == nil ? face.landmarks : Self.fivePointScheme.map { face.landmarks[$0] }
        let points = alignment.flatMap { [Float($0.x), Float($0.y)] }
        var values = [Float](repeating: 0, count: FaceDescriptor.dimension)
        let status = BLASRuntime.exclusive {
            image.rgb.withUnsafeBufferPointer { rgb in
                vf_encoder_compute(encoder, rgb.baseAddress, image.width, image.height, points, Int32(alignment.count), &values)
            }
        }
        guard status == VF_OK else { throw .encoderFailed }
        return FaceDescriptor(values)
    }

    private func runDetector(on gray: GrayImage, minScore: Double) -> [(box: Rect, score: Double)] {
        let capacity = 16
        var boxes = [vf_rect](repeating: vf_rect(), count: capacity)
        var scores = [Double](repeating: 0, count: capacity)
        let found = BLASRuntime.exclusive {
            gray.pixels.withUnsafeBufferPointer { pixels in
                vf_detector_run(detector, pixels.baseAddress, gray.width, gray.height, min(0, minScore), &boxes, &scores, Int32(capacity))
            }
        }
        guard found > 0 else { return [] }
        return (0..<min(Int(found), capacity)).compactMap { i in
            guard scores[i] >= minScore else { return nil }
            let r = boxes[i]
            let local = Rect(x: Double(r.left), y: Double(r.top),
                             width: Double(r.right - r.left + 1), height: Double(r.bottom - r.top + 1))
            return (gray.toSource(local), scores[i])
        }
    }

    private func predictLandmarks(_ image: Image, box: Rect) -> [Point2D] {
        guard let predictor = models.shapePredictor else { preconditionFailure("the 68-point predictor is loaded only when it reads the landmarks") }
        var points = [Float](repeating: 0, count: 136)
        let rect = vf_rect(left: Int(box.x.rounded()), top: Int(box.y.rounded()),
                           right: Int((box.x + box.width).rounded()) - 1, bottom: Int((box.y + box.height).rounded()) - 1)
        _ = BLASRuntime.exclusive {
            image.rgb.withUnsafeBufferPointer { rgb in
                vf_shape_predict(predictor, rgb.baseAddress, image.width, image.height, rect, &points)
            }
        }
        return (0..<68).map { Point2D(x: Double(points[2 * $0]), y: Double(points[2 * $0 + 1])) }
    }

    /// A detector's box a pyramid step (1.2) smaller, whose landmarks imply a box at most this
    /// much larger than itself, is where the face really is.
    static let stepSmallerFit = 1.12

    /// Landmarks for a detector's box, and the box they stand for.
    ///
    /// The detector's boxes come in pyramid steps 1.2 apart and sometimes sit a step too large
    /// and low, which drags the jaw and lips down (a resting mouth reads open, a still head
    /// nodding). The landmarks are also predicted in the box a step smaller: on a face the
    /// detector drew well, that fit spreads back out to the face (its landmarks imply a box about
    /// 1.25 times its own); when they stay within `stepSmallerFit` of it, the face is that small,
    /// and the landmarks are refined twice in the box the detector draws on average for their
    /// eyes, brows and nose. Otherwise the detector's own fit stands.
    private func refinedLandmarks(_ image: Image, detectedBox: Rect) -> (box: Rect, landmarks: [Point2D]) {
        let smaller = detectedBox.scaled(by: 1 / 1.2)
        var landmarks = predictLandmarks(image, box: smaller)
        var box = Self.canonicalBox(for: landmarks)
        guard box.width <= smaller.width * Self.stepSmallerFit else { return (detectedBox, predictLandmarks(image, box: detectedBox)) }
        for _ in 0..<2 {
            landmarks = predictLandmarks(image, box: box)
            box = Self.canonicalBox(for: landmarks)
        }
        return (box, landmarks)
    }

    /// The square box the detector draws on average around a face whose eyes, brows and nose
    /// lie at `landmarks`: 4.93 times the RMS radius of landmarks 27-47 wide, centred 0.67 of
    /// it below their centroid (fitted on the fixture photos, each at 21 scales).
    static func canonicalBox(for landmarks: [Point2D]) -> Rect {
        let centre = stableCentre(landmarks)
        let indices = 27...47
        let squares = indices.reduce(0) { sum, i in
            let d = landmarks[i].distance(to: centre)
            return sum + d * d
        }
        let radius = (squares / Double(indices.count)).squareRoot()
        let side = 4.93 * radius
        return Rect(x: centre.x - side / 2, y: centre.y + 0.67 * radius - side / 2, width: side, height: side)
    }

    /// A face the short-range detector found, with the mesh read in its region.
    private func observe(_ image: Image, _ detection: BlazeFaceDetector.Detection) -> FaceObservation? {
        observe(image, box: detection.box, score: detection.score, source: .detected, framesSinceDetection: 0, meshRegion: detection.meshRegion)
    }

    private func observe(_ image: Image, box: Rect, landmarks: [Point2D]? = nil, score: Double,
                         source: FaceObservation.Source, framesSinceDetection: Int, anchor: Rect? = nil,
                         mesh found: MeshLandmarks? = nil, meshRegion: FaceRegion? = nil) -> FaceObservation? {
        var found = found, meshBox: Rect?
        if landmarks == nil, found == nil, let mesh {
            // A detector's box: the mesh read once in the short-range detector's region (the crop
            // the mesh was trained on), or in HOG's box and then in the region its points call for.
            // A box the mesh finds no face in is none (a detector's false alarm). The face's box
            // is the one the detector draws on average for those points: its own boxes come in
            // pyramid steps and sit higher or lower from one detection to the next, which made a
            // still face's placement flicker across the centring limit.
            let reading = try? meshRegion.map { region throws(ModelError) in try mesh.landmarks(in: image, region: region) }
                ?? mesh.landmarks(in: image, refining: FaceRegion(box: box))
            guard let reading, reading.presence >= Self.meshPresence else { return nil }
            found = reading
            meshBox = Self.canonicalBox(for: reading.ibug68)
        }
        let (box, landmarks) = landmarks.map { (box, $0) } ?? found.map { (meshBox ?? box, $0.ibug68) }
            ?? (source == .detected ? refinedLandmarks(image, detectedBox: box) : (box, predictLandmarks(image, box: box)))
        let anchor = anchor ?? Rect.bounding(landmarks).map { b in
            Rect(x: (box.x - b.x) / max(b.width, 1), y: (box.y - b.y) / max(b.height, 1),
                 width: box.width / max(b.width, 1), height: box.height / max(b.height, 1))
        } ?? Rect(x: 0, y: 0, width: 1, height: 1)
        let quality = FaceQualityMeter.measure(image, box: box)
        return FaceObservation(
            box: box, score: score, landmarks: landmarks,
            pose: found.flatMap { found in meshPoseEstimator.map { $0.pose(for: Array(found.points.prefix(MeshLandmarks.faceCount))) } }
                ?? poseEstimator.pose(for: landmarks),
            eyes: FaceGeometry.eyes(landmarks), mouth: FaceGeometry.mouth(landmarks),
            quality: quality, color: FaceQualityMeter.color(image, box: box),
            placement: FaceGeometry.placement(box: box, landmarks: landmarks, width: image.width, height: image.height),
            source: source, framesSinceDetection: framesSinceDetection, anchor: anchor,
            eyeDetail: EyeDetailMeter.measure(image, landmarks: landmarks, faceContrast: quality.contrast), meshRegion: found?.nextRegion,
            surface: found?.surface)
    }
}
