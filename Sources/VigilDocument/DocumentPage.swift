import VigilCore

/// Where a document's page lies on a photo: its four corners. They are first placed from the
/// machine-readable zone, whose size and place on the page ICAO 9303 fixes for each format
/// (the perspective of the zone carries over to the page), then each edge is moved onto the
/// page's own edge where the photo shows it against what the page lies on.
public struct DocumentPage: Sendable, Equatable {
    /// Corners in photo pixels: top left, top right, bottom right, bottom left.
    public let corners: [Point2D]
    /// How many of the four edges were seen on the photo; the others are where the zone puts
    /// them (a page filling the photo, or lying on a table of its own colour).
    public let edgesSeen: Int

    /// A format's page and zone in millimetres: the page sizes of ICAO 9303 parts 4-6, the zone's
    /// lines centred at 2.54 mm a character, their last baseline about `bottomMargin` above the
    /// page's bottom edge (approximate: the edges seen on the photo decide).
    struct Layout {
        let width: Double, height: Double, bottomMargin: Double, lineLength: Int
        var zoneWidth: Double { Double(lineLength) * 2.54 }

        init(_ format: MRZFormat) {
            switch format {
            case .td1: (width, height, bottomMargin) = (85.6, 54.0, 3.5)
            case .td2: (width, height, bottomMargin) = (105.0, 74.0, 4.5)
            case .td3: (width, height, bottomMargin) = (125.0, 88.0, 5.0)
            // ICAO 9303 part 7: a visa sticker, its zone placed as a passport's or a card's.
            case .mrva: (width, height, bottomMargin) = (120.0, 80.0, 5.0)
            case .mrvb: (width, height, bottomMargin) = (105.0, 74.0, 4.5)
            }
            lineLength = format.lineLength
        }
    }

    /// How far (mm) an edge is looked for either side of where the zone puts it: real pages
    /// place their zone a few millimetres differently, and a zone's height read off a page seen
    /// at an angle is foreshortened.
    static let searchMillimetres = 9.0
    /// The least difference in grey (of 255) between the page just inside an edge and what lies
    /// just outside, along four fifths of the edge, for the edge to count as seen. Four fifths:
    /// the portrait's own side runs a few millimetres inside the page's for two thirds of its
    /// height.
    static let leastEdgeContrast = 16.0

    /// The page of a `format` document whose zone's text lies at `zone` on `photo` (top left,
    /// top right, bottom right, bottom left of its first line's capitals and last line's
    /// baseline); nil when the zone's corners do not make a quadrilateral.
    public static func locate(in photo: PageImage, zone: [Point2D], format: MRZFormat) -> DocumentPage? {
        guard zone.count == 4 else { return nil }
        let layout = Layout(format)
        // The zone's height in millimetres from its proportions on the photo.
        let across = zone[0].distance(to: zone[1]) + zone[3].distance(to: zone[2]), down = zone[0].distance(to: zone[3]) + zone[1].distance(to: zone[2])
        guard across > 0 else { return nil }
        let x0 = (layout.width - layout.zoneWidth) / 2, y1 = layout.height - layout.bottomMargin, y0 = y1 - layout.zoneWidth * down / across
        let zoneOnPage = [Point2D(x: x0, y: y0), Point2D(x: x0 + layout.zoneWidth, y: y0), Point2D(x: x0 + layout.zoneWidth, y: y1), Point2D(x: x0, y: y1)]
        guard let toPhoto = Homography(from: zoneOnPage, to: zone) else { return nil }
        // Top, right, bottom, left: each edge where the grey steps most clearly along its length
        // (clear of rounded corners), its two ends looked for apart (the zone's short sides
        // leave the page's sides leaning by a few degrees), then each half's place to a quarter
        // of a millimetre.
        let nominal = [0, layout.width, layout.height, 0]
        var edges: [Edge] = []
        for side in 0..<4 {
            // The sides and the bottom are looked for clear of the zone's text where they pass
            // it (where the zone's corners place them exactly): the zone's first characters and
            // the portrait's side above them can line up into a step like an edge's.
            let clear: (beyond: Double, over: ClosedRange<Double>)? = switch side {
            case 1: (x0 + layout.zoneWidth + 2, y0...y1)
            case 2: (y1 + 1.5, x0...(x0 + layout.zoneWidth))
            case 3: (x0 - 2, y0...y1)
            default: nil
            }
            let search = Search(side: side, layout: layout, photo: photo, toPhoto: toPhoto, clear: clear)
            guard let rough = search.roughEdge(near: nominal[side]) else {
                edges.append(Edge(at: nominal[side], slope: 0, seen: false))
                continue
            }
            let first = search.shift(rough, along: 0.08...0.45), second = search.shift(rough, along: 0.55...0.92)
            let (a, b) = (rough.position(at: 0.265 * search.span) + (first ?? 0), rough.position(at: 0.735 * search.span) + (second ?? 0))
            let slope = (b - a) / (0.47 * search.span)
            edges.append(Edge(at: a - slope * 0.265 * search.span, slope: slope, seen: true))
        }
        // A corner is where its two edges meet: x = left.at + left.slope * y, y = top.at + top.slope * x.
        func corner(_ vertical: Edge, _ horizontal: Edge) -> Point2D {
            let y = (horizontal.at + horizontal.slope * vertical.at) / (1 - horizontal.slope * vertical.slope)
            return toPhoto.map(Point2D(x: vertical.at + vertical.slope * y, y: y))
        }
        let corners = [corner(edges[3], edges[0]), corner(edges[1], edges[0]), corner(edges[1], edges[2]), corner(edges[3], edges[2])]
        // A zone drawn converging faster than any photo of a page does puts the page's far edge
        // beyond its vanishing line: no page, rather than one at infinity.
        guard corners.allSatisfy({ $0.x.isFinite && $0.y.isFinite }), DocumentPage.isConvex(corners) else { return nil }
        return DocumentPage(corners: corners, edgesSeen: edges.filter(\.seen).count)
    }

    /// An edge in millimetres on the page: a horizontal one at `y = at + slope * x`, a vertical
    /// one at `x = at + slope * y`.
    struct Edge {
        let at: Double, slope: Double
        var seen = true
        func position(at t: Double) -> Double { at + slope * t }
    }

    /// Looks for one edge (0 top, 1 right, 2 bottom, 3 left) of the page on the photo, outward
    /// of `clear.beyond` (mm across or down the page) over the part `clear.over` of its length.
    struct Search {
        let side: Int, layout: Layout, photo: PageImage, toPhoto: Homography, clear: (beyond: Double, over: ClosedRange<Double>)?
        var horizontal: Bool { side == 0 || side == 2 }
        /// The edge's length in millimetres.
        var span: Double { horizontal ? layout.width : layout.height }
        /// Outward from the page: up, right, down, left.
        var outward: Double { side == 0 || side == 3 ? -1 : 1 }

        /// The step in grey across `line`, over four fifths of the part `along` of its length
        /// (the fifth of least step left out); 0 where the line leaves the photo.
        func contrast(_ line: Edge, along: ClosedRange<Double>) -> Double {
            // A millimetre either side.
            let gap = 1.0
            if let clear, outward * (line.position(at: clear.over.lowerBound) - clear.beyond) < 0 || outward * (line.position(at: clear.over.upperBound) - clear.beyond) < 0 {
                return 0
            }
            var steps: [Double] = []
            for k in 0..<15 {
                let t = span * (along.lowerBound + (along.upperBound - along.lowerBound) * Double(k) / 14), at = line.position(at: t)
                func point(_ d: Double) -> Point2D { toPhoto.map(horizontal ? Point2D(x: t, y: at + d) : Point2D(x: at + d, y: t)) }
                let inside = point(-outward * gap), outside = point(outward * gap)
                // Both sides within the photo: where the page runs past it, no edge is seen.
                guard [inside, outside].allSatisfy({ $0.x >= 0 && $0.y >= 0 && $0.x <= Double(photo.width - 1) && $0.y <= Double(photo.height - 1) }) else {
                    return 0
                }
                steps.append(abs(photo.sample(inside.x, inside.y) - photo.sample(outside.x, outside.y)))
            }
            steps.sort()
            return steps[steps.count / 5]
        }

        /// The outermost line with a clear edge among those whose ends (at 8% and 92% of its
        /// length) lie within `searchMillimetres` of `nominal`, to half a millimetre; nil when
        /// none shows `leastEdgeContrast`. Outermost of those with at least 0.6 of the clearest
        /// step: inside the page, the portrait's side and the zone's first characters can line
        /// up into a steeper step than the page's own edge on a grey table.
        func roughEdge(near nominal: Double) -> Edge? {
            let offsets = stride(from: -searchMillimetres, through: searchMillimetres, by: 0.5).map { $0 }
            var found: [(line: Edge, step: Double, out: Double)] = []
            for a in offsets {
                for b in offsets {
                    let slope = (b - a) / (0.84 * span), line = Edge(at: nominal + a - slope * 0.08 * span, slope: slope)
                    let step = contrast(line, along: 0.08...0.92)
                    if step >= leastEdgeContrast { found.append((line, step, outward * (a + b))) }
                }
            }
            guard let clearest = found.map(\.step).max() else { return nil }
            return found.filter { $0.step >= 0.6 * clearest }.max { $0.out < $1.out }?.line
        }

        /// How far (mm) `line` moves to the middle of the run of places with a near-best step
        /// over the part `along` of its length, within a millimetre and a half: every place
        /// within the samples' gap of the edge has it between its two samples. Nil without a step.
        func shift(_ line: Edge, along: ClosedRange<Double>) -> Double? {
            let offsets = stride(from: -1.5, through: 1.5, by: 0.25).map { $0 }
            let contrasts = offsets.map { contrast(Edge(at: line.at + $0, slope: line.slope), along: along) }
            guard let best = contrasts.indices.max(by: { contrasts[$0] < contrasts[$1] }), contrasts[best] >= leastEdgeContrast else { return nil }
            var first = best, last = best
            while first > 0, contrasts[first - 1] >= 0.9 * contrasts[best] { first -= 1 }
            while last + 1 < contrasts.count, contrasts[last + 1] >= 0.9 * contrasts[best] { last += 1 }
            return (offsets[first] + offsets[last]) / 2
        }
    }

    /// Whether `corners` turn the same way at each corner (a quadrilateral a page can look like).
    static func isConvex(_ corners: [Point2D]) -> Bool {
        let turns = (0..<4).map { i -> Double in
            let a = corners[i], b = corners[(i + 1) % 4], c = corners[(i + 2) % 4]
            return (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x)
        }
        return turns.allSatisfy { $0 > 0 } || turns.allSatisfy { $0 < 0 }
    }

    /// Whether `point` of the photo lies on the page.
    public func contains(_ point: Point2D) -> Bool {
        // Inside a convex quadrilateral: on the same side of each of its edges.
        var sign = 0.0
        for i in 0..<4 {
            let a = corners[i], b = corners[(i + 1) % 4]
            let cross = (b.x - a.x) * (point.y - a.y) - (b.y - a.y) * (point.x - a.x)
            if cross * sign < 0 { return false }
            if cross != 0 { sign = cross }
        }
        return true
    }

    /// The box around the page, within a `width` x `height` photo (empty when it lies outside).
    public func bounds(width: Int, height: Int) -> Rect {
        Rect.bounding(corners)?.intersection(Rect(x: 0, y: 0, width: Double(width), height: Double(height))) ?? Rect(x: 0, y: 0, width: 0, height: 0)
    }
}
