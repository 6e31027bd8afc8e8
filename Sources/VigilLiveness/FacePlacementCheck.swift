import VigilCore
import VigilFace

/// Live guidance from one frame's faces: the most useful thing to fix first, or nil when the face
/// is well placed for a challenge.
public struct FacePlacementCheck: Codable, Sendable {
    /// Acceptable face size relative to the frame.
    public var sizeRange = 0.25...0.8
    /// Largest centre offset (fraction of frame width, height).
    public var maxOffset = Point2D(x: 0.15, y: 0.2)
    /// Acceptable face brightness.
    public var brightnessRange = 0.2...0.85
    /// Minimum sharpness (variance of Laplacian).
    public var minSharpness = 20.0

    /// Creates the defaults.
    public init() {}

    /// The guidance code for these faces, or nil when one face is well placed.
    public func guidance(for faces: [FaceObservation]) -> FeedbackCode? {
        guard let face = faces.first else { return .faceNotFound }
        guard faces.count == 1 else { return .multipleFaces }
        let p = face.placement, q = face.quality
        if p.relativeSize < sizeRange.lowerBound { return .faceTooFar }
        if p.relativeSize > sizeRange.upperBound { return .faceTooClose }
        if abs(p.centerOffset.x) > maxOffset.x || abs(p.centerOffset.y) > maxOffset.y { return .faceNotCentered }
        if q.brightness < brightnessRange.lowerBound { return .tooDark }
        if q.brightness > brightnessRange.upperBound { return .tooBright }
        if q.sharpness < minSharpness { return .blurry }
        return nil
    }
}
