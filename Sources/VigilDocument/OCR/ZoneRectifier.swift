import Foundation
import VigilCore

/// Straightens a zone seen at an angle. On the page the zone's lines are parallel rectangles; a
/// photo taken at an angle shows quadrilaterals whose top and bottom edges converge and whose
/// characters shrink toward the far side, so the reader's fixed pitch no longer holds. Every
/// line's top and bottom edges are measured where it has characters of full height and fitted
/// together as lines through one vanishing point (the page's lines are parallel); each line is
/// then mapped back to a rectangle of its own.
enum ZoneRectifier {
    /// Segments a line is cut into to find its top and bottom edges.
    static let segments = 16

    /// An edge of a line in the photo: y of x.
    typealias Edge = (Double) -> Double

    /// The zone's lines as the photo shows them.
    struct Outline {
        /// Each line's quadrilateral: top left, top right, bottom right, bottom left.
        let quads: [[Point2D]]

        /// How much taller the second line is at its taller end than at the other (1: level
        /// and parallel; about 1.3 for a page turned 25 degrees sideways).
        var convergence: Double {
            let q = quads[1], left = q[3].y - q[0].y, right = q[2].y - q[1].y
            return max(left, right) / max(1, min(left, right))
        }
    }

    /// The zone straightened, line by line, each line in a strip of its own; nil when it needs
    /// no straightening (its edges are level and parallel) or its edges cannot be found.
    static func rectified(_ zone: PageImage) -> PageImage? {
        outline(zone, ZoneDiagnosis.Lines(zone)).flatMap { straightened(zone, $0) }
    }

    /// Where the zone's `lines` lie; nil when their edges cannot be found.
    static func outline(_ zone: PageImage, _ lines: ZoneDiagnosis.Lines) -> Outline? {
        let (ink, bands) = (lines.ink, lines.bands)
        guard bands.count == 2 || bands.count == 3 else { return nil }
        // Each line's tops and baselines where it has characters of full height, looked for up
        // to halfway to its neighbours.
        var points: [[Point2D]] = []
        for k in bands.indices {
            let top = k > 0 ? (bands[k - 1].upperBound + bands[k].lowerBound) / 2 : max(0, bands[k].lowerBound - bands[k].count / 2)
            let bottom = k + 1 < bands.count ? (bands[k].upperBound + bands[k + 1].lowerBound) / 2 : min(zone.height, bands[k].upperBound + bands[k].count / 2)
            guard let found = fullHeight(zone, ink, rows: top..<bottom, core: bands[k]) else { return nil }
            points += [found.tops, found.bottoms]
        }
        guard let edges = concurrentLines(points) else { return nil }
        // The lines start at one column of the page and end at another: the quadrilaterals'
        // sides run through the lines' first and last ink, which a page turned sideways leans.
        let ends = bands.map { band -> (left: Point2D, right: Point2D) in
            let columns = MRZTextReader.extent(ink, width: zone.width, rows: band)
            let middle = Double(band.lowerBound + band.upperBound) / 2
            return (Point2D(x: Double(columns.lowerBound), y: middle), Point2D(x: Double(columns.upperBound), y: middle))
        }
        guard let left = fit(ends.map { Point2D(x: $0.left.y, y: $0.left.x) }), let right = fit(ends.map { Point2D(x: $0.right.y, y: $0.right.x) }) else {
            return nil
        }
        return Outline(quads: bands.indices.map { k in
            [meet(edges[2 * k], left), meet(edges[2 * k], right), meet(edges[2 * k + 1], right), meet(edges[2 * k + 1], left)]
        })
    }

    /// Each line of `outline` mapped back to a rectangle, in a strip of its own; nil when the
    /// zone is level with parallel edges (already rectangles) or its outline is degenerate.
    static func straightened(_ zone: PageImage, _ outline: Outline) -> PageImage? {
        // The second line (full height at both ends in every format) sets the size.
        let quad = outline.quads[1]
        let leftHeight = quad[3].y - quad[0].y, rightHeight = quad[2].y - quad[1].y
        let width = quad[1].x - quad[0].x, height = (leftHeight + rightHeight) / 2
        guard height >= 4, width > 0, abs(leftHeight - rightHeight) > 0.06 * height else { return nil }
        // Each line in a strip: a rectangle as tall as the second line, with 0.4 of its height
        // above and below (less than the gap between lines) and its height either side.
        let margin = height, gap = 0.4 * height
        let stripHeight = Int((height + 2 * gap).rounded()), stripWidth = Int((width + 2 * margin).rounded())
        var out = PageImage(width: stripWidth, height: stripHeight * outline.quads.count)
        let rectangle = [Point2D(x: 0, y: 0), Point2D(x: width, y: 0), Point2D(x: width, y: height), Point2D(x: 0, y: height)]
        for (k, corners) in outline.quads.enumerated() {
            guard let map = Homography(from: rectangle, to: corners) else { return nil }
            out.paste(zone.warped(width: stripWidth, height: stripHeight, source: Homography.shifted(map, by: Point2D(x: -margin, y: -gap))),
                      x: 0, y: k * stripHeight)
        }
        return out
    }

    /// The tops and baselines of the line `core`'s characters of full height, segment by
    /// segment, looked for within `rows`; nil when fewer than two segments have one.
    static func fullHeight(_ zone: PageImage, _ ink: [Bool], rows: Range<Int>, core: Range<Int>) -> (tops: [Point2D], bottoms: [Point2D])? {
        let columns = MRZTextReader.extent(ink, width: zone.width, rows: core)
        let extents = MRZTextReader.segmentExtents(ink, width: zone.width, rows: rows, core: core, columns: columns, segments: segments)
        // A segment of fillers is lower than the capitals' top and higher than their baseline.
        // Full height is the upper envelope of the segments' heights, which change slowly along
        // a line seen at an angle.
        let heights = extents.map { Point2D(x: $0.x, y: Double($0.rows.count)) }
        guard heights.count >= 2, let envelope = upperEnvelope(heights) else { return nil }
        let full = extents.indices.filter { heights[$0].y >= envelope(heights[$0].x) - max(1.5, 0.05 * envelope(heights[$0].x)) }
        guard full.count >= 2 else { return nil }
        return (full.map { Point2D(x: extents[$0].x, y: Double(extents[$0].rows.lowerBound)) },
                full.map { Point2D(x: extents[$0].x, y: Double(extents[$0].rows.upperBound)) })
    }

    /// Lines through `points` (one list a line), fitted together by least squares as lines
    /// through one point (or parallel): the edges of a zone's lines, which are parallel on the
    /// page. A line through a common point satisfies `y = a (1 + g x) + b x` for one `g` and `b`
    /// and its own `a`; for each `g` of a search this is linear. Points more than 2 pixels off
    /// the first fit are left out of the second.
    static func concurrentLines(_ points: [[Point2D]]) -> [Edge]? {
        let xs = points.joined().map(\.x)
        guard let low = xs.min(), let high = xs.max(), high > low, points.allSatisfy({ $0.count >= 2 }) else { return nil }
        let m = points.count
        func solve(_ points: [[Point2D]], _ g: Double) -> (residual: Double, a: [Double], b: Double)? {
            var normal = [[Double]](repeating: [Double](repeating: 0, count: m + 2), count: m + 1)
            for (k, line) in points.enumerated() {
                for p in line {
                    let u = 1 + g * p.x
                    for (r, vr) in [(k, u), (m, p.x)] {
                        for (c, vc) in [(k, u), (m, p.x)] { normal[r][c] += vr * vc }
                        normal[r][m + 1] += vr * p.y
                    }
                }
            }
            guard let solution = LinearSystem.solve(normal, tolerance: 1e-9) else { return nil }
            let a = Array(solution[0..<m]), b = solution[m]
            let residual = points.enumerated().reduce(0.0) { sum, line in
                sum + line.element.reduce(0.0) { $0 + pow($1.y - a[line.offset] * (1 + g * $1.x) - b * $1.x, 2) }
            }
            return (residual, a, b)
        }
        func best(_ points: [[Point2D]]) -> (g: Double, a: [Double], b: Double)? {
            // The vanishing point at x = -1/g, at least half the zone's width beyond either end
            // (a page seen at 40 degrees), or at infinity (g = 0): a coarse search, then a fine one.
            let reach = 1 / (0.5 * (high - low) + max(abs(low), abs(high))), steps = 100
            var found: (g: Double, residual: Double, a: [Double], b: Double)?
            var centre = 0.0, step = reach / Double(steps)
            for _ in 0..<2 {
                for i in -steps...steps {
                    let g = centre + Double(i) * step
                    if let fit = solve(points, g), fit.residual < found?.residual ?? .infinity { found = (g, fit.residual, fit.a, fit.b) }
                }
                centre = found?.g ?? 0
                step /= Double(steps) / 2
            }
            return found.map { ($0.g, $0.a, $0.b) }
        }
        guard let first = best(points) else { return nil }
        let kept = points.enumerated().map { k, line in
            line.filter { abs($0.y - first.a[k] * (1 + first.g * $0.x) - first.b * $0.x) <= 2 }
        }
        let fitted = kept.allSatisfy({ $0.count >= 2 }) ? best(kept) ?? first : first
        return fitted.a.map { a in { x in a * (1 + fitted.g * x) + fitted.b * x } }
    }

    /// Where the edge `y = edge(x)` meets the side `x = side(y)`.
    static func meet(_ edge: (Double) -> Double, _ side: (Double) -> Double) -> Point2D {
        // Both are straight: y = e0 + e1 x and x = s0 + s1 y.
        let e0 = edge(0), e1 = edge(1) - e0, s0 = side(0), s1 = side(1) - s0
        let x = (s0 + s1 * e0) / (1 - s1 * e1)
        return Point2D(x: x, y: e0 + e1 * x)
    }

    /// The line under which every point lies (within a pixel) and on which the most lie
    /// (within a pixel and a half).
    static func upperEnvelope(_ points: [Point2D]) -> ((Double) -> Double)? {
        var best: (on: Int, line: (Double) -> Double)?
        for i in points.indices {
            for j in points.indices where j > i && points[j].x != points[i].x {
                let slope = (points[j].y - points[i].y) / (points[j].x - points[i].x)
                let line = { (x: Double) in points[i].y + slope * (x - points[i].x) }
                guard points.allSatisfy({ $0.y - line($0.x) <= 1 }) else { continue }
                let on = points.filter { abs($0.y - line($0.x)) <= 1.5 }.count
                if best == nil || on > best!.on { best = (on, line) }
            }
        }
        return best?.line
    }

    /// The least-squares line through `points`.
    static func fit(_ points: [Point2D]) -> ((Double) -> Double)? {
        guard points.count >= 2 else { return nil }
        let n = Double(points.count)
        let mx = points.reduce(0) { $0 + $1.x } / n, my = points.reduce(0) { $0 + $1.y } / n
        let sxx = points.reduce(0) { $0 + ($1.x - mx) * ($1.x - mx) }, sxy = points.reduce(0) { $0 + ($1.x - mx) * ($1.y - my) }
        let slope = sxx > 0 ? sxy / sxx : 0
        return { x in my + slope * (x - mx) }
    }
}
