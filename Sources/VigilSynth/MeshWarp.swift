import VigilCore

/// Piecewise-affine warp: every triangle of a mesh is drawn at its target position with the pixels
/// of its source position. Triangles are drawn far to near, so a turned head hides its far side.
public struct MeshWarp: Sendable {
    /// Index triples into the point arrays.
    public let triangles: [(Int, Int, Int)]

    /// A warp over the Delaunay triangulation of the neutral `points`.
    public init(neutral points: [Point2D]) {
        triangles = Delaunay.triangulate(points)
    }

    /// A warp over given triangles.
    public init(triangles: [(Int, Int, Int)]) {
        self.triangles = triangles
    }

    /// Draws `source` moved from `from` to `to` into `target`; `depth` (larger = farther) orders
    /// triangles by their mean.
    public func render(_ source: PixelBuffer, from: [Point2D], to: [Point2D], depth: [Double], into target: inout PixelBuffer) {
        let order = triangles.indices.sorted { i, j in
            let a = triangles[i], b = triangles[j]
            return depth[a.0] + depth[a.1] + depth[a.2] > depth[b.0] + depth[b.1] + depth[b.2]
        }
        for t in order {
            let (i, j, k) = triangles[t]
            let s0 = from[i], s1 = from[j], s2 = from[k]
            target.fillTriangle(to[i], to[j], to[k]) { l0, l1 in
                let l2 = 1 - l0 - l1
                return source.sample(l0 * s0.x + l1 * s1.x + l2 * s2.x, l0 * s0.y + l1 * s1.y + l2 * s2.y)
            }
        }
    }
}
