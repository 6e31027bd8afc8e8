import VigilCore
import VigilFace

/// 3D consistency: while the head turns or nods, a real face's landmarks cannot be mapped onto
/// the neutral frame's by one planar homography (the nose moves against the cheeks); a photo or a
/// screen moved in front of the camera can. Scores the best homography's residual, on the mesh's
/// points spread over the face (`FaceObservation.surface`) where both frames have them, else on
/// the 68 landmarks.
public struct PlanarMotionCheck: Codable, Sendable {
    /// Head rotation (degrees from the neutral frame) from which a frame is evidence.
    public var minRotation = 12.0
    /// Residual (RMS, in inter-ocular distances) below which the motion is explained by a plane.
    public var planarResidual = 0.035

    private struct Reference: Codable, Sendable {
        let landmarks: [Point2D], yaw: Double, pitch: Double
        /// Optional: references stored before the surface was kept decode without it.
        let surface: [Point2D]?
    }

    private var reference: Reference?
    private var evidenceFrames = 0
    private var largestResidual = 0.0

    /// Creates the check with default limits.
    public init() {}

    /// Records one face; the first near-frontal face becomes the reference.
    public mutating func observe(_ face: FaceObservation) {
        guard face.landmarks.count == 68 else { return }
        guard let reference else {
            if abs(face.pose.yaw) < 10 && abs(face.pose.pitch) < 10 {
                self.reference = Reference(landmarks: face.landmarks, yaw: face.pose.yaw, pitch: face.pose.pitch, surface: face.surface)
            }
            return
        }
        let rotation = max(abs(face.pose.yaw - reference.yaw), abs(face.pose.pitch - reference.pitch))
        guard rotation >= minRotation else { return }
        evidenceFrames += 1
        let (from, to) = if let from = reference.surface, let to = face.surface, from.count == to.count {
            (from, to)
        } else {
            (reference.landmarks, face.landmarks)
        }
        largestResidual = max(largestResidual, Self.residual(from: from, to: to, interocular: Self.interocular(face.landmarks)))
    }

    /// The verdict so far; without head rotation there is no evidence either way.
    public var result: CheckResult {
        guard evidenceFrames > 0 else { return CheckResult(passed: true, score: 0.5, reason: "no_head_rotation") }
        let score = min(1, largestResidual / (2 * planarResidual))
        guard largestResidual >= planarResidual else {
            return CheckResult(passed: false, score: score, feedback: .motionIssue, reason: "planar_motion")
        }
        return CheckResult(passed: true, score: score)
    }

    /// RMS reprojection error of the least-squares homography from `a` to `b`, in `interocular`
    /// distances.
    static func residual(from a: [Point2D], to b: [Point2D], interocular: Double) -> Double {
        guard interocular > 0, let h = Homography.fit(from: a, to: b) else { return 0 }
        var sum = 0.0
        for (p, q) in zip(a, b) { sum += h.apply(p).distance(to: q) * h.apply(p).distance(to: q) }
        return (sum / Double(a.count)).squareRoot() / interocular
    }

    /// Distance between the eyes' centres of 68 landmarks.
    static func interocular(_ landmarks: [Point2D]) -> Double {
        let eye = { (r: ClosedRange<Int>) in
            Point2D(x: r.map { landmarks[$0].x }.reduce(0, +) / 6, y: r.map { landmarks[$0].y }.reduce(0, +) / 6)
        }
        return eye(36...41).distance(to: eye(42...47))
    }
}

/// A 3x3 projective transform of the plane (h33 = 1).
struct Homography {
    let h: [Double]

    func apply(_ p: Point2D) -> Point2D {
        let w = h[6] * p.x + h[7] * p.y + 1
        return Point2D(x: (h[0] * p.x + h[1] * p.y + h[2]) / w, y: (h[3] * p.x + h[4] * p.y + h[5]) / w)
    }

    /// Direct linear fit on normalised points (centroid at 0, mean distance sqrt 2), solved by
    /// least squares; nil for degenerate input.
    static func fit(from a: [Point2D], to b: [Point2D]) -> Homography? {
        guard a.count == b.count, a.count >= 4, let (na, ta) = normalise(a), let (nb, tb) = normalise(b) else { return nil }
        var ata = [[Double]](repeating: [Double](repeating: 0, count: 8), count: 8)
        var atb = [Double](repeating: 0, count: 8)
        for (p, q) in zip(na, nb) {
            let rows: [([Double], Double)] = [([p.x, p.y, 1, 0, 0, 0, -p.x * q.x, -p.y * q.x], q.x),
                                              ([0, 0, 0, p.x, p.y, 1, -p.x * q.y, -p.y * q.y], q.y)]
            for (row, rhs) in rows {
                for i in 0..<8 {
                    atb[i] += row[i] * rhs
                    for j in 0..<8 { ata[i][j] += row[i] * row[j] }
                }
            }
        }
        guard let x = solve(ata, atb) else { return nil }
        let normalised = Homography(h: x)
        // Undo the normalisations: H = Tb^-1 * Hn * Ta, expressed by mapping through each step.
        return Homography(composing: ta, normalised, inverseOf: tb)
    }

    /// Similarity normalisation (scale s, offset) as (s, cx, cy): p' = s * (p - c).
    private static func normalise(_ points: [Point2D]) -> ([Point2D], (Double, Double, Double))? {
        let n = Double(points.count)
        let cx = points.reduce(0) { $0 + $1.x } / n, cy = points.reduce(0) { $0 + $1.y } / n
        let mean = points.reduce(0) { $0 + (($1.x - cx) * ($1.x - cx) + ($1.y - cy) * ($1.y - cy)).squareRoot() } / n
        guard mean > 1e-9 else { return nil }
        let s = 2.0.squareRoot() / mean
        return (points.map { Point2D(x: s * ($0.x - cx), y: s * ($0.y - cy)) }, (s, cx, cy))
    }

    private init(h: [Double]) { self.h = h }

    private init(composing ta: (Double, Double, Double), _ hn: Homography, inverseOf tb: (Double, Double, Double)) {
        // Ta = [[s,0,-s cx],[0,s,-s cy],[0,0,1]]; Tb^-1 = [[1/s,0,cx],[0,1/s,cy],[0,0,1]].
        let a: [[Double]] = [[ta.0, 0, -ta.0 * ta.1], [0, ta.0, -ta.0 * ta.2], [0, 0, 1]]
        let m: [[Double]] = [[hn.h[0], hn.h[1], hn.h[2]], [hn.h[3], hn.h[4], hn.h[5]], [hn.h[6], hn.h[7], 1]]
        let bInv: [[Double]] = [[1 / tb.0, 0, tb.1], [0, 1 / tb.0, tb.2], [0, 0, 1]]
        func mul(_ x: [[Double]], _ y: [[Double]]) -> [[Double]] {
            (0..<3).map { i in (0..<3).map { j in (0..<3).reduce(0) { $0 + x[i][$1] * y[$1][j] } } }
        }
        let full = mul(bInv, mul(m, a))
        let scale = full[2][2]
        h = [full[0][0], full[0][1], full[0][2], full[1][0], full[1][1], full[1][2], full[2][0], full[2][1]].map { $0 / scale }
    }

    /// Gaussian elimination with partial pivoting.
    private static func solve(_ matrix: [[Double]], _ rhs: [Double]) -> [Double]? {
        var m = matrix, v = rhs
        let n = v.count
        for col in 0..<n {
            guard let pivot = (col..<n).max(by: { abs(m[$0][col]) < abs(m[$1][col]) }), abs(m[pivot][col]) > 1e-12 else { return nil }
            m.swapAt(col, pivot)
            v.swapAt(col, pivot)
            for row in (col + 1)..<n {
                let f = m[row][col] / m[col][col]
                for k in col..<n { m[row][k] -= f * m[col][k] }
                v[row] -= f * v[col]
            }
        }
        var x = [Double](repeating: 0, count: n)
        for row in stride(from: n - 1, through: 0, by: -1) {
            x[row] = (v[row] - ((row + 1)..<n).reduce(0) { $0 + m[row][$1] * x[$1] }) / m[row][row]
        }
        return x
    }
}
