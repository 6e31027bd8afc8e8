import VigilCore

/// Delaunay triangulation (Bowyer-Watson) of a small point set: the face mesh is triangulated once
/// per subject, on its neutral points, and the same triangles are then moved with the points.
enum Delaunay {
    /// Triangles as index triples into `points`, counter-clockwise in image coordinates.
    static func triangulate(_ points: [Point2D]) -> [(Int, Int, Int)] {
        guard points.count >= 3 else { return [] }
        let xs = points.map(\.x), ys = points.map(\.y)
        let minX = xs.min()!, maxX = xs.max()!, minY = ys.min()!, maxY = ys.max()!
        let span = max(maxX - minX, maxY - minY) * 20 + 1
        let cx = (minX + maxX) / 2, cy = (minY + maxY) / 2
        var all = points
        all.append(Point2D(x: cx - span, y: cy - span))
        all.append(Point2D(x: cx + span, y: cy - span))
        all.append(Point2D(x: cx, y: cy + span))
        let n = points.count
        var triangles: [(Int, Int, Int)] = [(n, n + 1, n + 2)]

        for i in 0..<n {
            let p = all[i]
            var bad: [Int] = []
            for (t, tri) in triangles.enumerated() where inCircumcircle(p, all[tri.0], all[tri.1], all[tri.2]) {
                bad.append(t)
            }
            // The hole's boundary: edges of bad triangles not shared by two of them.
            var edges: [(Int, Int)] = []
            for t in bad {
                let tri = triangles[t]
                for edge in [(tri.0, tri.1), (tri.1, tri.2), (tri.2, tri.0)] {
                    if let k = edges.firstIndex(where: { ($0.0 == edge.1 && $0.1 == edge.0) || ($0.0 == edge.0 && $0.1 == edge.1) }) {
                        edges.remove(at: k)
                    } else {
                        edges.append(edge)
                    }
                }
            }
            for t in bad.reversed() { triangles.remove(at: t) }
            for edge in edges { triangles.append(oriented(edge.0, edge.1, i, all)) }
        }
        return triangles.filter { $0.0 < n && $0.1 < n && $0.2 < n }
    }

    private static func oriented(_ a: Int, _ b: Int, _ c: Int, _ p: [Point2D]) -> (Int, Int, Int) {
        cross(p[a], p[b], p[c]) > 0 ? (a, b, c) : (a, c, b)
    }

    static func cross(_ a: Point2D, _ b: Point2D, _ c: Point2D) -> Double {
        (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
    }

    private static func inCircumcircle(_ p: Point2D, _ a: Point2D, _ b: Point2D, _ c: Point2D) -> Bool {
        let ax = a.x - p.x, ay = a.y - p.y, bx = b.x - p.x, by = b.y - p.y, cx = c.x - p.x, cy = c.y - p.y
        let det = (ax * ax + ay * ay) * (bx * cy - cx * by) - (bx * bx + by * by) * (ax * cy - cx * ay)
            + (cx * cx + cy * cy) * (ax * by - bx * ay)
        return cross(a, b, c) > 0 ? det > 0 : det < 0
    }
}
