import Foundation
import VigilCore

/// Head orientation in degrees, in the person's own frame.
///
/// `yaw` > 0: the person turns to their left (in an unmirrored frame the nose moves toward the
/// image's right edge). `pitch` > 0: the person looks up. `roll` > 0: the head tilts clockwise as
/// seen in the image.
public struct HeadPose: Codable, Hashable, Sendable {
    /// Rotation about the vertical axis.
    public var yaw: Double
    /// Rotation about the horizontal axis.
    public var pitch: Double
    /// Rotation in the image plane.
    public var roll: Double

    /// Creates a pose.
    public init(yaw: Double, pitch: Double, roll: Double) {
        self.yaw = yaw
        self.pitch = pitch
        self.roll = roll
    }
}

/// Fits a 3D face to landmarks under scaled orthographic projection (weighted least squares):
/// dlib's 68-point mean face, or the face mesh's canonical face with MediaPipe's weights, which
/// rest on points that expressions hardly move (eye corners, nose, forehead, cheeks).
public struct HeadPoseEstimator: Sendable {
    private let count: Int
    private let indices: [Int]              // the points with a weight
    private let weights: [Double]
    private let totalWeight: Double
    private let model: [SIMD3<Double>]      // those points, centred on their weighted centroid
    private let normalInverse: [[Double]]   // (XᵀWX)⁻¹ of the centred model

    /// Prepares the fit for `meanFace`, every point weighing `weights[i]` (all 1 when nil).
    public init(meanFace: [SIMD3<Double>], weights: [Double]? = nil) {
        count = meanFace.count
        let all = weights ?? [Double](repeating: 1, count: meanFace.count)
        indices = all.indices.filter { all[$0] > 0 }
        self.weights = indices.map { all[$0] }
        totalWeight = self.weights.reduce(0, +)
        let centroid = zip(indices, self.weights).reduce(SIMD3<Double>()) { $0 + $1.1 * meanFace[$1.0] } / totalWeight
        model = indices.map { meanFace[$0] - centroid }
        var normal = [[Double]](repeating: [0, 0, 0], count: 3)
        for (p, w) in zip(model, self.weights) {
            for r in 0..<3 { for c in 0..<3 { normal[r][c] += w * p[r] * p[c] } }
        }
        normalInverse = Self.invert3(normal)
    }

    /// The pose for landmarks in image coordinates, as many and in the order of the face's points.
    public func pose(for landmarks: [Point2D]) -> HeadPose {
        precondition(landmarks.count == count, "expected \(count) landmarks")
        var cx = 0.0, cy = 0.0
        for (i, w) in zip(indices, weights) {
            cx += w * landmarks[i].x
            cy += w * landmarks[i].y
        }
        cx /= totalWeight
        cy /= totalWeight
        // M = (xᵀWX)(XᵀWX)⁻¹: the 2x3 affine camera that best maps the model onto the landmarks.
        var cross = [[Double]](repeating: [0, 0, 0], count: 2)
        for ((i, w), q) in zip(zip(indices, weights), model) {
            let p = landmarks[i]
            for c in 0..<3 {
                cross[0][c] += w * (p.x - cx) * q[c]
                cross[1][c] += w * (p.y - cy) * q[c]
            }
        }
        func row(_ r: Int) -> SIMD3<Double> {
            var out = SIMD3<Double>()
            for c in 0..<3 { for k in 0..<3 { out[c] += cross[r][k] * normalInverse[k][c] } }
            return out
        }
        // Nearest rotation: orthonormalise the two rows (Gram-Schmidt), third row by cross product.
        let r1 = Self.normalize(row(0))
        let r2 = Self.normalize(row(1) - (row(1) * r1).sum() * r1)
        return Self.pose(r1, r2)
    }

    /// The pose for points with depth (the face mesh gives x and y in image pixels and z in the
    /// same scale, away from the camera): the rotation that best maps the face onto them (weighted
    /// Kabsch, by polar decomposition), free of the depth a flat fit must guess.
    public func pose(for points: [SIMD3<Double>]) -> HeadPose {
        precondition(points.count == count, "expected \(count) points")
        let centroid = zip(indices, weights).reduce(SIMD3<Double>()) { $0 + $1.1 * points[$1.0] } / totalWeight
        // H = Σ w (p - p̄) qᵀ: its orthogonal polar factor is the rotation taking the model to the points.
        var h = [[Double]](repeating: [0, 0, 0], count: 3)
        for ((i, w), q) in zip(zip(indices, weights), model) {
            let p = points[i] - centroid
            for r in 0..<3 { for c in 0..<3 { h[r][c] += w * p[r] * q[c] } }
        }
        var rotation = h
        for _ in 0..<30 {
            let inverse = Self.invert3(rotation)
            var next = rotation
            for r in 0..<3 { for c in 0..<3 { next[r][c] = (rotation[r][c] + inverse[c][r]) / 2 } }
            rotation = next
        }
        return Self.pose(Self.normalize(SIMD3(rotation[0][0], rotation[0][1], rotation[0][2])),
                         Self.normalize(SIMD3(rotation[1][0], rotation[1][1], rotation[1][2])))
    }

    /// Yaw, pitch and roll of the rotation whose first two rows are `r1` and `r2`.
    private static func pose(_ r1: SIMD3<Double>, _ r2: SIMD3<Double>) -> HeadPose {
        let r3 = SIMD3(r1.y * r2.z - r1.z * r2.y, r1.z * r2.x - r1.x * r2.z, r1.x * r2.y - r1.y * r2.x)
        // The face looks along -z of the model; its direction in camera space is -(third column).
        let facing = SIMD3(-r1.z, -r2.z, -r3.z)
        let degrees = 180 / Double.pi
        let yaw = atan2(facing.x, -facing.z) * degrees
        let pitch = atan2(-facing.y, (facing.x * facing.x + facing.z * facing.z).squareRoot()) * degrees
        let roll = atan2(r2.x, r1.x) * degrees
        return HeadPose(yaw: yaw, pitch: pitch, roll: roll)
    }

    private static func normalize(_ v: SIMD3<Double>) -> SIMD3<Double> {
        let length = (v * v).sum().squareRoot()
        return length > 0 ? v / length : v
    }

    private static func invert3(_ m: [[Double]]) -> [[Double]] {
        let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        var inv = [[Double]](repeating: [0, 0, 0], count: 3)
        for r in 0..<3 {
            for c in 0..<3 {
                let rows = [0, 1, 2].filter { $0 != c }, cols = [0, 1, 2].filter { $0 != r }
                let minor = m[rows[0]][cols[0]] * m[rows[1]][cols[1]] - m[rows[0]][cols[1]] * m[rows[1]][cols[0]]
                inv[r][c] = ((r + c) % 2 == 0 ? 1 : -1) * minor / det
            }
        }
        return inv
    }
}
