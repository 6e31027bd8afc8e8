import VigilCore

/// A plane-to-plane projective map: where the points of a flat page appear in a photo taken at
/// an angle, or back. Four points and their images determine it.
public struct Homography: Sendable, Equatable {
    /// The 3x3 matrix row by row, its last entry 1.
    public let entries: [Double]

    /// The map taking each of `source` (four points, no three in a line) to the same index of
    /// `target`; nil when the points do not determine one.
    public init?(from source: [Point2D], to target: [Point2D]) {
        guard source.count == 4, target.count == 4 else { return nil }
        // Two equations a point: u (h31 x + h32 y + 1) = h11 x + h12 y + h13, and v likewise.
        var rows: [[Double]] = []
        for (p, q) in zip(source, target) {
            rows.append([p.x, p.y, 1, 0, 0, 0, -p.x * q.x, -p.y * q.x, q.x])
            rows.append([0, 0, 0, p.x, p.y, 1, -p.x * q.y, -p.y * q.y, q.y])
        }
        guard let solution = LinearSystem.solve(rows, tolerance: 1e-12) else { return nil }
        entries = solution + [1]
    }

    /// The map that first moves a point by `offset`, then applies `map`.
    public static func shifted(_ map: Homography, by offset: Point2D) -> Homography {
        let h = map.entries, dx = offset.x, dy = offset.y
        // H * T, where T translates by (dx, dy).
        return Homography(entries: [h[0], h[1], h[0] * dx + h[1] * dy + h[2],
                                    h[3], h[4], h[3] * dx + h[4] * dy + h[5],
                                    h[6], h[7], h[6] * dx + h[7] * dy + h[8]])
    }

    private init(entries: [Double]) { self.entries = entries }

    /// Where `point` goes.
    public func map(_ point: Point2D) -> Point2D {
        let h = entries
        let w = h[6] * point.x + h[7] * point.y + h[8]
        return Point2D(x: (h[0] * point.x + h[1] * point.y + h[2]) / w, y: (h[3] * point.x + h[4] * point.y + h[5]) / w)
    }
}
