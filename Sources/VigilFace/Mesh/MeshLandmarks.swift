import VigilCore

/// The 478 points of MediaPipe's face mesh on one face (the 468 of its face topology, then 5 for
/// each iris), in image pixels (x right, y down, z towards the camera's far side, in the same
/// pixel scale), with the model's belief that a face is there at all.
public struct MeshLandmarks: Sendable {
    /// The points in the mesh's own order (MediaPipe's canonical face topology).
    public let points: [SIMD3<Double>]
    /// Probability (0...1) that the region held a face.
    public let presence: Double
    /// The region the points were read in.
    public let region: FaceRegion

    /// Number of points of the mesh.
    public static let count = 478
    /// Number of points of the face topology (the canonical face's), before the irises'.
    public static let faceCount = 468
    /// Outer corner of the subject's right eye (the image's left on a frontal face).
    public static let rightEyeOuter = 33
    /// Outer corner of the subject's left eye.
    public static let leftEyeOuter = 263
    /// Tip of the nose.
    public static let noseTip = 1

    /// The mesh points that stand for the 68 points of the iBUG 300-W scheme, in its order (jaw
    /// line, brows, nose, eyes, lips), so that measures written for that scheme read the mesh.
    /// Chosen on the mesh's topology (face oval, brow, eye and lip contours), each the contour
    /// vertex nearest on average to where the scheme puts its point on the fixture portraits,
    /// paired left with right: the eyes' corners are the mesh's own (33, 133, 362, 263), the
    /// jaw's points lie on its face oval.
    public static let ibugIndices: [Int] = [
        127, 234, 132, 58, 172, 150, 149, 148, 152, 377, 378, 379, 397, 288, 361, 454, 356,  // jaw 0-16
        46, 63, 105, 66, 55, 285, 296, 334, 293, 276,                                     // brows 17-26
        168, 197, 5, 4, 240, 97, 2, 326, 460,                                             // nose 27-35
        33, 160, 158, 133, 153, 144, 362, 385, 387, 263, 373, 380,                        // eyes 36-47
        61, 39, 37, 0, 267, 269, 291, 321, 314, 17, 84, 91,                               // outer lips 48-59
        78, 82, 13, 312, 308, 317, 14, 87,                                                // inner lips 60-67
    ]

    /// 120 mesh points spread evenly over the face's surface, for measures that want the shape
    /// of the whole face rather than its contours (the planar-motion check): chosen on the
    /// canonical face seen from the front by farthest-point sampling from the nose tip, so that
    /// none lies more than about 1 cm from another (nose, cheeks, forehead, chin and the oval).
    public static let surfaceIndices: [Int] = [
        1, 9, 10, 12, 21, 28, 42, 50, 52, 54, 57, 58, 66, 67, 68, 69, 70, 84, 93, 103, 104, 106, 107, 108,
        109, 111, 118, 119, 123, 127, 132, 136, 142, 143, 149, 150, 151, 152, 162, 163, 164, 165, 171, 172,
        176, 187, 188, 192, 193, 194, 195, 200, 205, 206, 210, 211, 213, 214, 216, 217, 225, 226, 232, 234,
        235, 251, 272, 280, 282, 284, 287, 288, 296, 297, 298, 299, 300, 314, 323, 332, 333, 335, 336, 337,
        338, 340, 347, 348, 351, 352, 356, 361, 365, 371, 372, 378, 379, 385, 389, 390, 391, 396, 397, 411,
        416, 418, 425, 426, 430, 431, 433, 434, 436, 437, 441, 445, 446, 452, 454, 455,
    ]

    /// The mesh's points at `surfaceIndices`.
    public var surface: [Point2D] { Self.surfaceIndices.map(point) }

    /// The mesh's points in the 68-point scheme (`ibugIndices`).
    public var ibug68: [Point2D] { Self.ibugIndices.map(point) }

    /// Point `index` in the image plane.
    public func point(_ index: Int) -> Point2D { Point2D(x: points[index].x, y: points[index].y) }

    /// The region these points call for in the next frame of a video.
    public var nextRegion: FaceRegion {
        FaceRegion(points: points, rightEye: Self.rightEyeOuter, leftEye: Self.leftEyeOuter)
    }
}
