import Foundation
import VigilCore

/// The square, turned part of an image a face mesh is read in: centred on the face, `side`
/// pixels wide, its x axis along the eye line (`angle`, radians, clockwise in image coordinates).
public struct FaceRegion: Codable, Hashable, Sendable {
    /// Centre in image pixels.
    public var center: Point2D
    /// Side of the square in image pixels.
    public var side: Double
    /// Angle of the eye line, from the image's x axis towards its y axis (radians).
    public var angle: Double

    /// Creates a region.
    public init(center: Point2D, side: Double, angle: Double) {
        self.center = center
        self.side = side
        self.angle = angle
    }

    /// The mesh model wants the face with room around it: its training crops were 1.5 times the
    /// face's extent (MediaPipe's own margin).
    static let margin = 1.5

    /// The region around a detector's box (dlib's boxes run from the brows to the chin), its
    /// angle from the eyes' centres when they are known.
    public init(box: Rect, rightEye: Point2D? = nil, leftEye: Point2D? = nil) {
        center = Point2D(x: box.midX, y: box.midY)
        side = Self.margin * max(box.width, box.height)
        if let right = rightEye, let left = leftEye {
            angle = atan2(left.y - right.y, left.x - right.x)
        } else {
            angle = 0
        }
    }

    /// The region a face's mesh points call for: their extent along and across the eye line
    /// through `rightEye` and `leftEye` (indices into `points`), with the margin.
    init(points: [SIMD3<Double>], rightEye: Int, leftEye: Int) {
        let right = points[rightEye], left = points[leftEye]
        let angle = atan2(left.y - right.y, left.x - right.x)
        let (c, s) = (cos(angle), sin(angle))
        var low = SIMD2<Double>(repeating: .infinity), high = SIMD2<Double>(repeating: -.infinity)
        for p in points {
            let along = SIMD2(p.x * c + p.y * s, -p.x * s + p.y * c)
            low = pointwiseMin(low, along)
            high = pointwiseMax(high, along)
        }
        let mid = (low + high) / 2
        center = Point2D(x: mid.x * c - mid.y * s, y: mid.x * s + mid.y * c)
        side = Self.margin * max(high.x - low.x, high.y - low.y)
        self.angle = angle
    }

    /// The image point at `(u, v)` of the region, both in 0...1 from its top-left corner.
    func imagePoint(u: Double, v: Double) -> SIMD2<Double> {
        let dx = (u - 0.5) * side, dy = (v - 0.5) * side
        let (c, s) = (cos(angle), sin(angle))
        return SIMD2(center.x + dx * c - dy * s, center.y + dx * s + dy * c)
    }
}
