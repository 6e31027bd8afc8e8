import Foundation
import Testing
import VigilCore
@testable import VigilFace

/// The pose fits on a face of known shape turned by known angles: the flat fit (image points) and
/// the fit with depth (mesh points) must read the same turn, and a turn about one axis must read
/// as that axis alone.
@Suite struct HeadPoseEstimatorTests {
    /// A face-like cloud (x right, y down, z away from the camera): eyes, nose forward, mouth, chin,
    /// cheeks, forehead, with the nose nearest the camera.
    static let face: [SIMD3<Double>] = [
        SIMD3(-4.5, -2.6, 0.0), SIMD3(-1.8, -2.6, -0.5), SIMD3(1.8, -2.6, -0.5), SIMD3(4.5, -2.6, 0.0),  // eye corners
        SIMD3(0, 1.1, -7.5), SIMD3(0, -2.4, -3.5), SIMD3(-1.5, 2.0, -5.0), SIMD3(1.5, 2.0, -5.0),       // nose
        SIMD3(-2.8, 4.5, -3.0), SIMD3(2.8, 4.5, -3.0), SIMD3(0, 9.4, -3.5),                             // mouth, chin
        SIMD3(-6.5, 0.5, 2.5), SIMD3(6.5, 0.5, 2.5), SIMD3(0, -8.2, -2.0), SIMD3(-4, -6.6, -0.5), SIMD3(4, -6.6, -0.5),
    ]

    /// `face` turned by yaw (about y), then pitch (about x), then roll (about z), scaled and moved.
    static func turned(yaw: Double, pitch: Double, roll: Double) -> [SIMD3<Double>] {
        let (y, p, r) = (yaw * .pi / 180, pitch * .pi / 180, roll * .pi / 180)
        return face.map { v in
            var q = SIMD3(v.x * cos(y) + v.z * sin(y), v.y, -v.x * sin(y) + v.z * cos(y))
            q = SIMD3(q.x, q.y * cos(p) - q.z * sin(p), q.y * sin(p) + q.z * cos(p))
            q = SIMD3(q.x * cos(r) - q.y * sin(r), q.x * sin(r) + q.y * cos(r), q.z)
            return 12 * q + SIMD3(320, 240, 0)
        }
    }

    @Test func anUnturnedFaceReadsZero() {
        let pose = HeadPoseEstimator(meanFace: Self.face).pose(for: Self.turned(yaw: 0, pitch: 0, roll: 0))
        #expect(abs(pose.yaw) < 1e-6 && abs(pose.pitch) < 1e-6 && abs(pose.roll) < 1e-6, "\(pose)")
    }

    @Test(arguments: [(25.0, 0.0, 0.0), (-30.0, 0.0, 0.0), (0.0, 20.0, 0.0), (0.0, 0.0, -15.0), (18.0, -12.0, 8.0)])
    func theFitWithDepthReadsWhatTheFlatFitReads(_ angles: (Double, Double, Double)) {
        let estimator = HeadPoseEstimator(meanFace: Self.face)
        let points = Self.turned(yaw: angles.0, pitch: angles.1, roll: angles.2)
        let deep = estimator.pose(for: points), flat = estimator.pose(for: points.map { Point2D(x: $0.x, y: $0.y) })
        #expect(abs(deep.yaw - flat.yaw) < 0.01 && abs(deep.pitch - flat.pitch) < 0.01 && abs(deep.roll - flat.roll) < 0.01,
                "depth \(deep), flat \(flat)")
        // One axis at a time reads as that axis only, by its angle.
        if angles.1 == 0, angles.2 == 0 { #expect(abs(abs(deep.yaw) - abs(angles.0)) < 0.01 && abs(deep.pitch) < 0.01, "\(deep)") }
        if angles.0 == 0, angles.2 == 0 { #expect(abs(abs(deep.pitch) - abs(angles.1)) < 0.01 && abs(deep.yaw) < 0.01, "\(deep)") }
        if angles.0 == 0, angles.1 == 0 { #expect(abs(abs(deep.roll) - abs(angles.2)) < 0.01 && abs(deep.yaw) < 0.01, "\(deep)") }
    }

    @Test func pointsWithoutWeightDoNotMoveThePose() {
        // The mouth and chin (indices 8-10) weigh nothing: dropping the jaw leaves the pose as it was.
        let weights = Self.face.indices.map { (8...10).contains($0) ? 0.0 : 1.0 }
        let estimator = HeadPoseEstimator(meanFace: Self.face, weights: weights)
        var points = Self.turned(yaw: 10, pitch: 5, roll: 0)
        let before = estimator.pose(for: points)
        for i in 8...10 { points[i].y += 40 }
        let after = estimator.pose(for: points)
        #expect(abs(before.yaw - after.yaw) < 1e-9 && abs(before.pitch - after.pitch) < 1e-9, "\(before) \(after)")
    }
}
