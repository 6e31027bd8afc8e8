/// Reads the characters of a machine-readable zone from an upright, cropped image of it, by
/// matching each character cell against OCR-B templates: the zone's font, character set and
/// fixed pitch are all set by ICAO 9303 part 3, so no language model is needed (Debian's
/// Tesseract models read runs of `<` as letters). Each character comes with its margin over the
/// next best, so that a doubtful one (6 or G) is known as such.
public struct MRZTextReader: Sendable {
    /// One line as read.
    public struct Line: Sendable, Equatable {
        public let text: String
        /// For each character, how much better its template matched than the best other one
        /// (correlation difference, 0 to 2).
        public let margins: [Double]
    }

    /// Why no zone could be read.
    public enum Failure: Error, Equatable, Sendable {
        /// No 2 or 3 lines of text.
        case noLines(found: Int)
        /// The image is too small to hold a zone.
        case tooSmall
    }

    static let characters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<")
    /// Template cell size: one pitch wide, one capital high.
    private let cellWidth: Int, cellHeight: Int
    /// Pitch over capital height of the font.
    private let aspect: Double
    private let templates: [(character: Character, pixels: [Double])]

    /// Templates drawn with `font` (rendered at a size where a capital is about 24 pixels).
    public init(font: OCRBFont) {
        let capital = font.glyph("H")?.height ?? font.pixelHeight * 7 / 10
        let advance = font.glyph("0")?.advance ?? font.pixelHeight * 6 / 10
        cellWidth = advance
        cellHeight = capital
        aspect = Double(advance) / Double(capital)
        var templates: [(Character, [Double])] = []
        for character in Self.characters {
            var cell = PageImage(width: advance, height: capital)
            if let glyph = font.glyph(character) {
                for gy in 0..<glyph.height {
                    for gx in 0..<glyph.width {
                        let x = glyph.left + gx, y = capital - glyph.top + gy
                        guard x >= 0, y >= 0, x < advance, y < capital else { continue }
                        cell[x, y] = 255 - glyph.coverage[gy * glyph.width + gx]
                    }
                }
            }
            templates.append((character, Self.normalised(cell.pixels.map { 255 - Double($0) })))
        }
        self.templates = templates
    }

    /// The zone's lines, top to bottom.
    public func read(_ image: PageImage) throws(Failure) -> [Line] {
        guard image.width >= 60, image.height >= 10 else { throw .tooSmall }
        let threshold = Self.otsu(image)
        let ink = image.pixels.map { $0 < threshold }
        let bands = Self.lineBands(ink, width: image.width, height: image.height)
        guard bands.count == 2 || bands.count == 3 else { throw .noLines(found: bands.count) }
        let lengths = bands.count == 3 ? [30] : [44, 36]
        // The length whose pitch gives the font's proportions, decided on the first line.
        let first = Self.extent(ink, width: image.width, rows: bands[0])
        let height = Double(bands[0].count)
        let length = lengths.min { abs(Double(first.count) / (Double($0) - 0.2) / height - aspect) < abs(Double(first.count) / (Double($1) - 0.2) / height - aspect) }!
        // A band's top or bottom row of ink may fall below the threshold (a line of mostly
        // fillers has few pixels in its capitals' top row): the band, a row taller at either
        // end, that the characters match best is the line.
        return bands.map { band in
            let variants = [band, (band.lowerBound - 1)..<band.upperBound, band.lowerBound..<(band.upperBound + 1),
                            (band.lowerBound - 1)..<(band.upperBound + 1)].filter { $0.lowerBound >= 0 && $0.upperBound <= image.height }
            return variants.map { read(line: $0, length: length, image: image, ink: ink) }.max { $0.score < $1.score }!.line
        }
    }

    /// The line read over `rows`, and the sum of its characters' best correlations.
    ///
    /// The font has a fixed pitch, so the characters sit on a regular grid. A first pass lets
    /// each cell slide a little to find its character; a line fitted through where they were
    /// found is the grid, and the second pass reads every cell on it. A cell left free to slide
    /// finds wrong characters: `P` moved a fifth of a pitch to the left loses the right of its
    /// bowl and matches `F` better than `P` in place matches `P`.
    private func read(line rows: Range<Int>, length: Int, image: PageImage, ink: [Bool]) -> (line: Line, score: Double) {
        let columns = Self.extent(ink, width: image.width, rows: rows)
        let estimate = Double(columns.count) / (Double(length) - 0.2)
        var found: [Double] = [], x = Double(columns.lowerBound) - estimate * 0.1
        for _ in 0..<length {
            let best = match(image, x: x, width: estimate, rows: rows, shifts: (-3...3).map { Double($0) * estimate * 0.06 })
            found.append(x + best.shift)
            x += estimate + best.shift * 0.5
        }
        let grid = Self.fitGrid(found)
        var text = "", margins: [Double] = [], total = 0.0
        for index in 0..<length {
            let best = match(image, x: grid.origin + grid.pitch * Double(index), width: grid.pitch, rows: rows,
                             shifts: (-1...1).map { Double($0) * grid.pitch * 0.03 })
            text.append(best.character)
            margins.append(best.score - best.second)
            total += best.score
        }
        return (Line(text: text, margins: margins), total)
    }

    /// The character whose template best matches the cell at `x`, at any of `shifts`; with its
    /// correlation, the best other character's, and the shift.
    private func match(_ image: PageImage, x: Double, width: Double, rows: Range<Int>, shifts: [Double])
        -> (character: Character, score: Double, second: Double, shift: Double) {
        var best = (character: Character("<"), score: -2.0, second: -2.0, shift: 0.0)
        for shift in shifts {
            let sample = Self.normalised(sampleCell(image, x: x + shift, width: width, rows: rows))
            for template in templates {
                let score = Self.dot(sample, template.pixels)
                if score > best.score {
                    if template.character != best.character { best.second = best.score }
                    best = (template.character, score, best.second, shift)
                } else if score > best.second, template.character != best.character {
                    best.second = score
                }
            }
        }
        return best
    }

    /// The line `origin + pitch * index` through the cells' positions, by least squares, fitted
    /// again without the cells more than a tenth of a pitch off it.
    static func fitGrid(_ positions: [Double]) -> (origin: Double, pitch: Double) {
        func fit(_ points: [(Double, Double)]) -> (origin: Double, pitch: Double) {
            let n = Double(points.count)
            let mx = points.reduce(0) { $0 + $1.0 } / n, my = points.reduce(0) { $0 + $1.1 } / n
            let sxx = points.reduce(0) { $0 + ($1.0 - mx) * ($1.0 - mx) }, sxy = points.reduce(0) { $0 + ($1.0 - mx) * ($1.1 - my) }
            let pitch = sxx > 0 ? sxy / sxx : 0
            return (my - pitch * mx, pitch)
        }
        let points = positions.enumerated().map { (Double($0.offset), $0.element) }
        let first = fit(points)
        let kept = points.filter { abs($0.1 - first.origin - first.pitch * $0.0) <= first.pitch * 0.1 }
        return kept.count >= max(2, points.count / 2) ? fit(kept) : first
    }

    /// The cell at `x` (`width` wide, over `rows`), resampled to the template size, as ink (0-255).
    private func sampleCell(_ image: PageImage, x: Double, width: Double, rows: Range<Int>) -> [Double] {
        var out = [Double](repeating: 0, count: cellWidth * cellHeight)
        let sx = width / Double(cellWidth), sy = Double(rows.count) / Double(cellHeight)
        for cy in 0..<cellHeight {
            for cx in 0..<cellWidth {
                let fx = x + (Double(cx) + 0.5) * sx - 0.5, fy = Double(rows.lowerBound) + (Double(cy) + 0.5) * sy - 0.5
                out[cy * cellWidth + cx] = 255 - Self.bilinear(image, fx, fy)
            }
        }
        return out
    }

    private static func bilinear(_ image: PageImage, _ x: Double, _ y: Double) -> Double {
        let x0 = Int(x.rounded(.down)), y0 = Int(y.rounded(.down))
        let ax = x - Double(x0), ay = y - Double(y0)
        func at(_ px: Int, _ py: Int) -> Double {
            guard px >= 0, py >= 0, px < image.width, py < image.height else { return 255 }
            return Double(image[px, py])
        }
        return (at(x0, y0) * (1 - ax) + at(x0 + 1, y0) * ax) * (1 - ay) + (at(x0, y0 + 1) * (1 - ax) + at(x0 + 1, y0 + 1) * ax) * ay
    }

    static func dot(_ a: [Double], _ b: [Double]) -> Double {
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                var sum = 0.0
                for i in 0..<min(a.count, b.count) { sum += a[i] * b[i] }
                return sum
            }
        }
    }

    /// Zero mean, unit length: the dot product of two is their correlation.
    static func normalised(_ values: [Double]) -> [Double] {
        let mean = values.reduce(0, +) / Double(max(1, values.count))
        let centred = values.map { $0 - mean }
        let norm = centred.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return norm > 0 ? centred.map { $0 / norm } : centred
    }

    /// Otsu's threshold: the grey level that best splits ink from paper.
    static func otsu(_ image: PageImage) -> UInt8 {
        var histogram = [Int](repeating: 0, count: 256)
        for p in image.pixels { histogram[Int(p)] += 1 }
        let total = Double(image.pixels.count)
        let sum = histogram.enumerated().reduce(0.0) { $0 + Double($1.offset * $1.element) }
        var background = 0.0, sumBackground = 0.0, best = (variance: -1.0, level: 128)
        for level in 0..<256 {
            background += Double(histogram[level])
            guard background > 0, background < total else { continue }
            sumBackground += Double(level * histogram[level])
            let mb = sumBackground / background, mf = (sum - sumBackground) / (total - background)
            let variance = background * (total - background) * (mb - mf) * (mb - mf)
            if variance > best.variance { best = (variance, level) }
        }
        return UInt8(best.level + 1)
    }

    /// Runs of rows holding ink, each at least a fifth as tall as the tallest unless `keepShort`.
    static func lineBands(_ ink: [Bool], width: Int, height: Int, keepShort: Bool = false) -> [Range<Int>] {
        let counts = (0..<height).map { y in (0..<width).reduce(0) { $0 + (ink[y * width + $1] ? 1 : 0) } }
        let minimum = max(2, (counts.max() ?? 0) / 20)
        var bands: [Range<Int>] = [], start: Int?
        for y in 0...height {
            let inked = y < height && counts[y] >= minimum
            if inked, start == nil { start = y }
            if !inked, let s = start {
                bands.append(s..<y)
                start = nil
            }
        }
        let tallest = bands.map(\.count).max() ?? 0
        return keepShort ? bands.filter { $0.count >= 3 } : bands.filter { $0.count * 5 >= tallest }
    }

    /// The columns from the first to the last holding ink within `rows`.
    static func extent(_ ink: [Bool], width: Int, rows: Range<Int>) -> Range<Int> {
        let inked = (0..<width).filter { x in rows.contains { ink[$0 * width + x] } }
        guard let first = inked.first, let last = inked.last else { return 0..<0 }
        return first..<(last + 1)
    }
}
