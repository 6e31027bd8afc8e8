import VigilCore

/// Why a zone that was found could not be read, told from the zone itself as what the person can
/// do about it: characters too small, print washed out by a reflection, strokes smeared by focus
/// or by movement, or a page seen at a steep angle. Asked once a reading has failed, except
/// `tooSmeared`, which decides whether a zone is read at all.
enum ZoneDiagnosis {
    /// The least capital height, in pixels, that reads: the reader's tests read capitals of 18
    /// pixels blurred and noisy, and fail at 13.
    static let minimumCharacterHeight = 16
    /// The widest edge, as a fraction of the capitals' height, of a zone sharp enough to read.
    /// Measured on 2026-12-04, 3 pages each of the evaluation at 2 MP: sharp 0.031-0.042, noisy
    /// 0.044-0.057, blurred over 3 pixels 0.073-0.102 (these read), moving 0.157-0.191; out of
    /// focus 0.135-0.196 (30 pages).
    static let maximumEdgeWidth = 0.12
    /// Edges this many times wider across one direction than the other are smeared by movement.
    static let movementRatio = 1.8
    /// A second line this many times taller at one end than the other is seen at a steep angle.
    static let steepConvergence = 1.2

    /// A photo whose edges are this wide, as a fraction of its width, is too blurred to find a
    /// zone on. Measured as above: sharp 0.0009-0.0010, blurred 0.0017-0.0021, noisy
    /// 0.0022-0.0026, out of focus 0.0040-0.0043, moving 0.0046-0.0051.
    static let maximumPhotoEdgeWidth = 0.0033

    /// What would help, for `page` (upright, background removed) on which no zone was found: a
    /// zone whose lines span less of the photo than a zone must (`MRZLocator`) is too far; a
    /// smeared photo is to be taken again, still or in focus.
    static func guidance(withoutZone page: PageImage) -> DocumentGuidance {
        if !MRZLocator.zones(in: page, widthShare: 0.15).isEmpty { return .tooFar }
        let widths = edgeWidths(page, bands: [0..<page.height])
        if max(widths.across, widths.down) > maximumPhotoEdgeWidth * Double(page.width) { return smeared(widths) }
        return .noDocument
    }

    /// A zone's ink and lines, measured once for every question asked of it.
    struct Lines {
        let ink: [Bool]
        /// The rows of each line.
        let bands: [Range<Int>]
        /// The median height of the lines' characters (0 without lines).
        let height: Int

        init(_ zone: PageImage) {
            let threshold = MRZTextReader.otsu(zone)
            ink = zone.pixels.map { $0 < threshold }
            bands = MRZTextReader.lineBands(ink, width: zone.width, height: zone.height)
            let heights = bands.map { [ink] rows in
                MRZTextReader.characterHeight(ink, width: zone.width, rows: rows, columns: MRZTextReader.extent(ink, width: zone.width, rows: rows))
            }.sorted()
            height = heights.isEmpty ? 0 : heights[heights.count / 2]
        }
    }

    /// Movement smears edges along one direction, focus along all.
    static func smeared(_ widths: (across: Double, down: Double)) -> DocumentGuidance {
        max(widths.across, widths.down) > movementRatio * min(widths.across, widths.down) ? .holdStill : .blurry
    }

    /// `blurry` or `holdStill` when the edges of `zone` (upright, background removed) are too
    /// wide to trust a reading of it, nil when they are sharp enough. Asked before reading: out
    /// of focus, 2 of 90 pages of the evaluation of 2026-12-04 (seed 2) were read wrong with
    /// every check holding (`O` as `D` in a state; `Q` and `B` as `4` and `D` in a number whose
    /// check digits their errors cancelled in).
    static func tooSmeared(_ zone: PageImage, _ lines: Lines) -> DocumentGuidance? {
        guard !lines.bands.isEmpty, lines.height > 0 else { return nil }
        let widths = edgeWidths(zone, bands: lines.bands)
        return max(widths.across, widths.down) > maximumEdgeWidth * Double(lines.height) ? smeared(widths) : nil
    }

    /// What would help, for `zone` (upright, background removed) with `lines`, whose lines lie
    /// at `outline`, once reading it failed (a zone too blurred to read was refused before
    /// reading, by `tooSmeared`).
    static func guidance(_ zone: PageImage, _ lines: Lines, outline: ZoneRectifier.Outline?) -> DocumentGuidance {
        let (ink, bands, height) = (lines.ink, lines.bands, lines.height)
        guard !bands.isEmpty, height > 0 else { return .unreadable }
        if height < minimumCharacterHeight { return .tooFar }
        // Seen at a steep angle, the lines' ends lean: only blank runs within them count.
        let steep = (outline?.convergence ?? 1) > steepConvergence
        if washedOut(ink, width: zone.width, lines: bands.map { ($0, MRZTextReader.extent(ink, width: zone.width, rows: $0)) }, height: height,
                     comparingEnds: !steep) {
            return .glare
        }
        if steep { return .notFlat }
        return .unreadable
    }

    /// Whether characters are missing: a zone's lines have no spaces (every position holds a
    /// character or a filler) and start and end at the same columns, so a run of blank columns
    /// wider than 1.3 capitals within a line, or a line that starts or ends that much before the
    /// others (when `comparingEnds`), is print washed out.
    static func washedOut(_ ink: [Bool], width: Int, lines: [(rows: Range<Int>, columns: Range<Int>)], height: Int, comparingEnds: Bool = true) -> Bool {
        let widest = Int(1.3 * Double(height))
        let starts = lines.map(\.columns.lowerBound), ends = lines.map(\.columns.upperBound)
        if comparingEnds, starts.max()! - starts.min()! > widest || ends.max()! - ends.min()! > widest { return true }
        return lines.contains { line in
            var blank = 0
            for x in line.columns {
                blank = line.rows.contains { ink[$0 * width + x] } ? 0 : blank + 1
                if blank > widest { return true }
            }
            return false
        }
    }

    /// How wide, in pixels, the zone's edges between ink and paper are across (along x) and down
    /// (along y): for an edge of contrast C spread over w pixels, the steps between neighbours
    /// sum to C and their squares to C^2 / w, so w = C * sum |d| / sum d^2. Steps under a tenth
    /// of the contrast (paper's grain, noise) are left out.
    static func edgeWidths(_ zone: PageImage, bands: [Range<Int>]) -> (across: Double, down: Double) {
        // The 2nd and 98th percentiles of the bands' greys, from their histogram (sorting a whole
        // photo's pixels took a sixth of a read without a zone).
        var histogram = [Int](repeating: 0, count: 256), count = 0
        for band in bands {
            for level in zone.pixels[(band.lowerBound * zone.width)..<(band.upperBound * zone.width)] { histogram[Int(level)] += 1 }
            count += band.count * zone.width
        }
        guard count > 0 else { return (0, 0) }
        // The grey at `rank` in the sorted greys.
        func level(at rank: Int) -> Double {
            var seen = 0
            for (grey, n) in histogram.enumerated() {
                seen += n
                if seen > rank { return Double(grey) }
            }
            return 255
        }
        let contrast = level(at: count * 98 / 100) - level(at: count / 50)
        guard contrast > 0 else { return (0, 0) }
        var sums = (across: (0.0, 0.0), down: (0.0, 0.0))
        func add(_ a: UInt8, _ b: UInt8, to sum: inout (Double, Double)) {
            let d = abs(Double(a) - Double(b))
            if d >= 0.1 * contrast { sum = (sum.0 + d, sum.1 + d * d) }
        }
        for band in bands {
            for y in max(0, band.lowerBound - 2)..<min(zone.height - 1, band.upperBound + 2) {
                for x in 0..<(zone.width - 1) {
                    add(zone[x, y], zone[x + 1, y], to: &sums.across)
                    add(zone[x, y], zone[x, y + 1], to: &sums.down)
                }
            }
        }
        func width(_ sum: (Double, Double)) -> Double { sum.1 > 0 ? contrast * sum.0 / sum.1 : 0 }
        return (width(sums.across), width(sums.down))
    }
}
