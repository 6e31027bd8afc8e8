import VigilCore

/// Straightens a zone seen at an angle. On the page the zone's lines are parallel rectangles; a
/// photo taken at an angle shows quadrilaterals whose top and bottom edges converge and whose
/// characters shrink toward the far side, so the reader's fixed pitch no longer holds. The
/// second line is measured (in every format it starts and ends with full-height characters:
/// a document number or date, and the composite check digit), and the plane map that makes it
/// a rectangle again straightens the whole zone.
enum ZoneRectifier {
    /// Segments a line is cut into to find its top and bottom edges.
    static let segments = 16

    /// The zone straightened, with room around it for the lines above and below the second;
    /// nil when it needs no straightening (its second line is level with parallel edges) or its
    /// edges cannot be found.
    static func rectified(_ zone: PageImage) -> PageImage? {
        let threshold = MRZTextReader.otsu(zone)
        let ink = zone.pixels.map { $0 < threshold }
        let bands = MRZTextReader.lineBands(ink, width: zone.width, height: zone.height)
        guard bands.count == 2 || bands.count == 3 else { return nil }
        let second = bands[1]
        // The rows that may hold the second line: up to halfway to its neighbours.
        let top = (bands[0].upperBound + second.lowerBound) / 2
        let bottom = bands.count == 3 ? (second.upperBound + bands[2].lowerBound) / 2 : min(zone.height, second.upperBound + second.count / 2)
        guard let edges = edges(zone, ink, rows: top..<bottom) else { return nil }
        // The lines start at one column of the page and end at another: the quadrilateral's
        // sides run through the lines' first and last ink, which a page turned sideways leans.
        let ends = bands.map { band -> (left: Point2D, right: Point2D) in
            let columns = MRZTextReader.extent(ink, width: zone.width, rows: band)
            let middle = Double(band.lowerBound + band.upperBound) / 2
            return (Point2D(x: Double(columns.lowerBound), y: middle), Point2D(x: Double(columns.upperBound), y: middle))
        }
        guard let left = fit(ends.map { Point2D(x: $0.left.y, y: $0.left.x) }), let right = fit(ends.map { Point2D(x: $0.right.y, y: $0.right.x) }) else {
            return nil
        }
        let quad = [meet(edges.top, left), meet(edges.top, right), meet(edges.bottom, right), meet(edges.bottom, left)]
        let leftHeight = quad[3].y - quad[0].y, rightHeight = quad[2].y - quad[1].y
        let width = quad[1].x - quad[0].x, height = (leftHeight + rightHeight) / 2
        guard height >= 4, width > 0 else { return nil }
        // Level, with parallel edges: already a rectangle.
        if abs(leftHeight - rightHeight) <= 0.06 * height { return nil }
        let rectangle = [Point2D(x: 0, y: 0), Point2D(x: width, y: 0), Point2D(x: width, y: height), Point2D(x: 0, y: height)]
        guard let map = Homography(from: rectangle, to: quad) else { return nil }
        // Three lines' room above and below the second, and a line's height either side.
        let margin = height, above = 3 * height
        return zone.warped(width: Int((width + 2 * margin).rounded()), height: Int((7 * height).rounded()),
                           source: Homography.shifted(map, by: Point2D(x: -margin, y: -above)))
    }

    /// The top and bottom edges of the line within `rows` (its capitals' tops and their
    /// baseline), as y of x.
    static func edges(_ zone: PageImage, _ ink: [Bool], rows: Range<Int>) -> (top: (Double) -> Double, bottom: (Double) -> Double)? {
        let columns = MRZTextReader.extent(ink, width: zone.width, rows: rows)
        guard columns.count >= 2 * segments, !rows.isEmpty else { return nil }
        var tops: [Point2D] = [], bottoms: [Point2D] = []
        for s in 0..<segments {
            let x0 = columns.lowerBound + columns.count * s / segments, x1 = columns.lowerBound + columns.count * (s + 1) / segments
            let inked = rows.filter { y in (x0..<x1).contains { ink[y * zone.width + $0] } }
            guard let first = inked.first, let last = inked.last else { continue }
            let middle = Double(x0 + x1) / 2
            tops.append(Point2D(x: middle, y: Double(first)))
            bottoms.append(Point2D(x: middle, y: Double(last + 1)))
        }
        guard tops.count >= 4 else { return nil }
        // Only segments with a character of full height mark the edges: a segment of fillers is
        // lower than the capitals' top and higher than their baseline. Full height is the upper
        // envelope of the segments' heights, which change slowly along a line seen at an angle.
        let heights = zip(tops, bottoms).map { Point2D(x: $0.x, y: $1.y - $0.y) }
        guard let envelope = upperEnvelope(heights) else { return nil }
        let full = heights.indices.filter { heights[$0].y >= envelope(heights[$0].x) - max(1.5, 0.05 * envelope(heights[$0].x)) }
        guard full.count >= 3, let top = fit(full.map { tops[$0] }), let bottom = fit(full.map { bottoms[$0] }) else { return nil }
        return (top, bottom)
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
