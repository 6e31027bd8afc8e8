import VigilCore

/// The 468 points of MediaPipe's face mesh on one face, in image pixels (x right, y down, z
/// towards the camera's far side, in the same pixel scale), with the model's belief that a face
/// is there at all.
public struct MeshLandmarks: Sendable {
    /// The points in the mesh's own order (MediaPipe's canonical face topology).
    public let points: [SIMD3<Double>]
    /// Probability (0...1) that the region held a face.
    public let presence: Double
    /// The region the points were read in.
    public let region: FaceRegion

    /// Number of points of the mesh.
    public static let count = 468
    /// Outer corner of the subject's right eye (the image's left on a frontal face).
    public static let rightEyeOuter = 33
    /// Outer corner of the subject's left eye.
    public static let leftEyeOuter = 263

    /// Point `index` in the image plane.
    public func point(_ index: Int) -> Point2D { Point2D(x: points[index].x, y: points[index].y) }

    /// The region these points call for in the next frame of a video.
    public var nextRegion: FaceRegion {
        FaceRegion(points: points, rightEye: Self.rightEyeOuter, leftEye: Self.leftEyeOuter)
    }
}
