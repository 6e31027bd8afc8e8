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

/// Fits a 3D mean face to 68 landmarks under scaled orthographic projection (least squares).
public struct HeadPoseEstimator: Sendable {
    private let model: [SIMD3<Double>]
    private let normalInverse: [[Double]]   // (XᵀX)⁻¹ of the centred model

    /// Prepares the fit for a 68-point mean face.
    public init(meanFace: [SIMD3<Double>]) {
        let centroid = meanFace.reduce(SIMD3<Double>()) { $0 + $1 } / Double(meanFace.count)
        model = meanFace.map { $0 - centroid }
        var normal = [[Double]](repeating: [0, 0, 0], count: 3)
        for p in model {
            for r in 0..<3 { for c in 0..<3 { normal[r][c] += p[r] * p[c] } }
        }
        normalInverse = Self.invert3(normal)
    }

    /// The pose for 68 landmarks in image coordinates.
    public func pose(for landmarks: [Point2D]) -> HeadPose {
        precondition(landmarks.count == model.count, "expected \(model.count) landmarks")
        let n = Double(landmarks.count)
        let cx = landmarks.reduce(0) { $0 + $1.x } / n, cy = landmarks.reduce(0) { $0 + $1.y } / n
        // M = (xᵀX)(XᵀX)⁻¹: the 2x3 affine camera that best maps the model onto the landmarks.
        var cross = [[Double]](repeating: [0, 0, 0], count: 2)
        for (p, q) in zip(landmarks, model) {
            for c in 0..<3 {
                cross[0][c] += (p.x - cx) * q[c]
                cross[1][c] += (p.y - cy) * q[c]
            }
        }
        func row(_ r: Int) -> SIMD3<Double> {
            var out = SIMD3<Double>()
            for c in 0..<3 { for k in 0..<3 { out[c] += cross[r][k] * normalInverse[k][c] } }
            return out
        }
        // Nearest rotation: orthonormalise the two rows (Gram-Schmidt), third row by cross product.
        let r1 = normalize(row(0))
        let r2 = normalize(row(1) - (row(1) * r1).sum() * r1)
        let r3 = SIMD3(r1.y * r2.z - r1.z * r2.y, r1.z * r2.x - r1.x * r2.z, r1.x * r2.y - r1.y * r2.x)
        // The face looks along -z of the model; its direction in camera space is -(third column).
        let facing = SIMD3(-r1.z, -r2.z, -r3.z)
        let degrees = 180 / Double.pi
        let yaw = atan2(facing.x, -facing.z) * degrees
        let pitch = atan2(-facing.y, (facing.x * facing.x + facing.z * facing.z).squareRoot()) * degrees
        let roll = atan2(r2.x, r1.x) * degrees
        return HeadPose(yaw: yaw, pitch: pitch, roll: roll)
    }

    private func normalize(_ v: SIMD3<Double>) -> SIMD3<Double> {
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
