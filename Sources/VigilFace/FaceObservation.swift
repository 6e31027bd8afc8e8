import VigilCore

/// Everything the analyzer measured about one face in one frame.
public struct FaceObservation: Codable, Hashable, Sendable {
    /// How the face was found in this frame.
    public enum Source: String, Codable, Sendable {
        /// Found by a detector (MediaPipe's short-range detector, or dlib's HOG).
        case detected
        /// Followed from the previous frame's face region without a detection.
        case tracked
    }

    /// Face box in the detector's convention (source image pixels); landmarks are predicted inside it.
    public var box: Rect
    /// Detector confidence; for tracked frames, the last detection's score.
    public var score: Double
    /// 68 landmarks in iBUG 300-W order.
    public var landmarks: [Point2D]
    /// Head orientation.
    public var pose: HeadPose
    /// Eye aspect ratio per eye (the person's own left and right); ~0.3 open, < 0.15 closed.
    public var eyes: EyeOpenness
    /// How much detail each eye shows, which falls when it shuts; nil where an eye is too small
    /// or outside the frame (and in observations made before it was measured).
    public var eyeDetail: EyeDetail?
    /// Mouth aspect ratio: inner-lip gap over mouth width; ~0 closed, > 0.3 wide open.
    public var mouth: Double
    /// Image quality of the face region.
    public var quality: FaceQuality
    /// Mean colour of the central face region (skin), for the reflection check.
    public var color: FaceColor
    /// Placement of the face in the frame.
    public var placement: FacePlacement
    /// Detection or tracking.
    public var source: Source
    /// Frames since the last real detection (0 when detected in this frame).
    public var framesSinceDetection: Int
    /// The last detection's box relative to its landmarks' bounding box (origin and size in
    /// fractions of it): tracking rebuilds the box from new landmarks with it, so it cannot drift.
    public var anchor: Rect
    /// Set on a doubtful track: the roll of the last shape a detection or a steady track gave.
    /// A head turned or nodded fast between two frames can leave the landmark predictor drawing
    /// a tilted face between where it was and where it is; the track stays doubtful until its
    /// roll comes back near this or a detection replaces it. Its pose then says nothing.
    public var trustedRoll: Double?
    /// Where the face mesh reads this face in the next frame (nil with the 68-point predictor).
    public var meshRegion: FaceRegion?
    /// The mesh's points spread over the face (`MeshLandmarks.surfaceIndices`; nil with the
    /// 68-point predictor).
    public var surface: [Point2D]?
    /// Whether this is a doubtful track (`trustedRoll`).
    public var isDoubtful: Bool { trustedRoll != nil }

    /// Creates an observation (the analyzer does this; tests and synthetic sources may too).
    public init(box: Rect, score: Double, landmarks: [Point2D], pose: HeadPose, eyes: EyeOpenness, mouth: Double,
                quality: FaceQuality, color: FaceColor, placement: FacePlacement, source: Source, framesSinceDetection: Int, anchor: Rect,
                eyeDetail: EyeDetail? = nil, trustedRoll: Double? = nil, meshRegion: FaceRegion? = nil, surface: [Point2D]? = nil) {
        self.box = box
        self.score = score
        self.landmarks = landmarks
        self.pose = pose
        self.eyes = eyes
        self.mouth = mouth
        self.quality = quality
        self.color = color
        self.placement = placement
        self.source = source
        self.framesSinceDetection = framesSinceDetection
        self.anchor = anchor
        self.eyeDetail = eyeDetail
        self.trustedRoll = trustedRoll
        self.meshRegion = meshRegion
        self.surface = surface
    }
}

/// Eye aspect ratios of the person's own left and right eye.
public struct EyeOpenness: Codable, Hashable, Sendable {
    /// The person's left eye (image right in an unmirrored frame).
    public var left: Double
    /// The person's right eye.
    public var right: Double

    /// Creates a pair of ratios.
    public init(left: Double, right: Double) {
        self.left = left
        self.right = right
    }
}

/// Grey-level spread along each eye over the whole face's (the person's own left and right):
/// an open eye shows white and iris, a shut one eyelid skin.
public struct EyeDetail: Codable, Hashable, Sendable {
    /// The person's left eye.
    public var left: Double
    /// The person's right eye.
    public var right: Double

    /// Creates a pair of spreads.
    public init(left: Double, right: Double) {
        self.left = left
        self.right = right
    }
}

/// Brightness, contrast and sharpness of the face region.
public struct FaceQuality: Codable, Hashable, Sendable {
    /// Variance of the Laplacian on the face resampled to 128 px wide; below ~20 is blurry.
    public var sharpness: Double
    /// Mean luminance in [0, 1].
    public var brightness: Double
    /// Standard deviation of luminance in [0, 1].
    public var contrast: Double

    /// Creates a quality record.
    public init(sharpness: Double, brightness: Double, contrast: Double) {
        self.sharpness = sharpness
        self.brightness = brightness
        self.contrast = contrast
    }
}

/// Mean red, green and blue of a face region, each in [0, 1].
public struct FaceColor: Codable, Hashable, Sendable {
    /// Mean red.
    public var red: Double
    /// Mean green.
    public var green: Double
    /// Mean blue.
    public var blue: Double

    /// Creates a colour.
    public init(red: Double, green: Double, blue: Double) {
        self.red = red
        self.green = green
        self.blue = blue
    }
}

/// Where the face sits in the frame.
public struct FacePlacement: Codable, Hashable, Sendable {
    /// Face box size relative to the frame: its larger side over the frame's shorter side, the
    /// same in portrait and landscape.
    public var relativeSize: Double
    /// Offset of the face centre from the frame centre, in fractions of frame width and height.
    public var centerOffset: Point2D
    /// Distance between the eye centres in pixels.
    public var interocularDistance: Double

    /// Creates a placement record.
    public init(relativeSize: Double, centerOffset: Point2D, interocularDistance: Double) {
        self.relativeSize = relativeSize
        self.centerOffset = centerOffset
        self.interocularDistance = interocularDistance
    }
}
