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
        /// For each character, its template's correlation with the cell (-1 to 1).
        public let scores: [Double]
        /// For each character, the character that matched next best.
        public let runnersUp: [Character]
    }

    /// The mean correlation of the characters of `lines` with their templates: how well a
    /// reading matches, to choose between readings of one zone.
    public static func meanScore(_ lines: [Line]) -> Double {
        let scores = lines.flatMap(\.scores)
        return scores.isEmpty ? -1 : scores.reduce(0, +) / Double(scores.count)
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
    /// The templates a position of each kind is matched against: its characters and the filler.
    private let candidates: [MRZFormat.Kind: [(character: Character, index: Int, pixels: [SIMD8<Float>])]]
    /// Each character's amount of ink, in its template.
    private let ink: [Character: Double]

    /// Templates drawn with `font` (rendered at a size where a capital is about 24 pixels).
    public init(font: OCRBFont) {
        let capital = font.glyph("H")?.height ?? font.pixelHeight * 7 / 10
        let advance = font.glyph("0")?.advance ?? font.pixelHeight * 6 / 10
        cellWidth = advance
        cellHeight = capital
        var templates: [(character: Character, index: Int, pixels: [SIMD8<Float>])] = [], inks: [Character: Double] = [:]
        for (index, character) in Self.characters.enumerated() {
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
            var pixels = cell.pixels.map { 255 - Double($0) }
            Self.normalise(&pixels)
            templates.append((character, index, Self.lanes(pixels)))
            inks[character] = cell.pixels.reduce(0) { $0 + 255 - Double($1) }
        }
        candidates = [.letter: templates.filter { $0.character.isLetter || $0.character == "<" }, .digit: templates.filter { $0.character.isNumber || $0.character == "<" },
                      .any: templates]
        ink = inks
    }

    /// Whether some letter of `line` beat a letter with less ink by under `margin`: a stroke
    /// that another letter lacks (the tail of `Q`, the leg of `R`) must be seen clearly, since
    /// no field rule tells two letters apart and no check digit covers a name. The other way
    /// round is common and right: an `O` matches `Q` nearly as well as `O`.
    public func hasDoubtfulLetter(_ line: Line, margin: Double) -> Bool {
        zip(line.text, zip(line.margins, line.runnersUp)).contains { character, next in
            character.isLetter && next.1.isLetter && next.0 < margin && (ink[character] ?? 0) > (ink[next.1] ?? 0)
        }
    }

    /// The zone's lines, top to bottom, of `lineLength` characters when given (another reader
    /// counted them), else of the length the lines' pitch tells.
    public func read(_ image: PageImage, lineLength: Int? = nil) throws(Failure) -> [Line] {
        guard image.width >= 60, image.height >= 10 else { throw .tooSmall }
        let threshold = Self.otsu(image)
        let ink = image.pixels.map { $0 < threshold }
        let bands = Self.lineBands(ink, width: image.width, height: image.height)
        guard bands.count == 2 || bands.count == 3 else { throw .noLines(found: bands.count) }
        // TD1 has 3 lines of 30; TD2 and TD3 have 2, of 36 and 44. Which of those: the pitch at
        // which the second line's ink repeats (its proportions would do on a page seen square,
        // but not on one straightened from an angle, whose width is foreshortened).
        let length: Int
        if let lineLength, MRZFormat(lineCount: bands.count, lineLength: lineLength) != nil {
            length = lineLength
        } else if bands.count == 3 {
            length = 30
        } else {
            let columns = Self.extent(ink, width: image.width, rows: bands[1])
            func repeats(_ length: Int) -> Double {
                Self.periodicity(ink, width: image.width, rows: bands[1], columns: columns, pitch: Double(columns.count) / (Double(length) - 0.2))
            }
            length = repeats(44) >= repeats(36) ? 44 : 36
        }
        // Each position is matched against the characters its field may hold (ICAO 9303): a
        // date's `0` is never taken for `O`, nor a name's `O` for `0`. The check digits still
        // verify every digit they cover.
        var format = MRZFormat(lineCount: bands.count, lineLength: length)!
        let faint = Self.faintLevel(image, threshold: threshold, bands: bands)
        // A band's top or bottom row of ink may fall below the threshold (a line of mostly
        // fillers has few pixels in its capitals' top row): the band, a row taller at either
        // end, that the characters match best is the line.
        var lines: [Line] = []
        for (index, band) in bands.enumerated() {
            let variants = [band, (band.lowerBound - 1)..<band.upperBound, band.lowerBound..<(band.upperBound + 1),
                            (band.lowerBound - 1)..<(band.upperBound + 1)].filter { $0.lowerBound >= 0 && $0.upperBound <= image.height }
            let line = variants.map { read(line: $0, kinds: format.kinds(line: index), image: image, ink: ink, faint: faint) }
                .max { Self.meanScore([$0]) < Self.meanScore([$1]) }!
            // A visa (code `V`) lays out its second line as its own format does.
            if index == 0, line.text.first == "V", let visa = format.visa { format = visa }
            lines.append(line)
        }
        return lines
    }

    /// How well the template of each character a field of `kind` may hold matches a cell of
    /// `pitch` centred on `centre`, `height` rows tall anywhere within `rows` (the best of small
    /// shifts either way), in the order of `characters` (-2 for the others): the templates' view
    /// of a character another reader placed, on a line that may curve or slant.
    public func scores(_ image: PageImage, centre: Double, pitch: Double, rows: Range<Int>, height: Int, kind: MRZFormat.Kind) -> [Double] {
        var each = [Double](repeating: -2, count: Self.characters.count)
        let step = max(1, height / 8)
        for top in stride(from: rows.lowerBound, through: max(rows.lowerBound, rows.upperBound - height), by: step) {
            _ = match(image, x: centre - pitch / 2, width: pitch, rows: top..<(top + height), kind: kind,
                      shifts: (-3...3).map { Double($0) * pitch * 0.06 }, each: &each)
        }
        return each
    }

    /// The line read over `rows`.
    ///
    /// The font has a fixed pitch, so the characters sit on a regular grid. A first pass lets
    /// each cell slide a little to find its character; a line fitted through where they were
    /// found is the grid, and the second pass reads every cell on it. A cell left free to slide
    /// finds wrong characters: `P` moved a fifth of a pitch to the left loses the right of its
    /// bowl and matches `F` better than `P` in place matches `P`.
    private func read(line rows: Range<Int>, kinds: [MRZFormat.Kind], image: PageImage, ink: [Bool], faint: Int) -> Line {
        let length = kinds.count
        let columns = Self.faintExtent(image, level: faint, rows: rows, columns: Self.extent(ink, width: image.width, rows: rows))
        let estimate = Double(columns.count) / (Double(length) - 0.2)
        var found: [Double] = [], x = Double(columns.lowerBound) - estimate * 0.1
        for index in 0..<length {
            let best = match(image, x: x, width: estimate, rows: rows, kind: kinds[index], shifts: (-3...3).map { Double($0) * estimate * 0.06 })
            found.append(x + best.shift)
            x += estimate + best.shift * 0.5
        }
        let grid = Self.fitGrid(found)
        var text = "", margins: [Double] = [], scores: [Double] = [], runnersUp: [Character] = []
        for index in 0..<length {
            let x = grid(Double(index)), pitch = grid(Double(index + 1)) - x
            let best = match(image, x: x, width: pitch, rows: rows, kind: kinds[index], shifts: (-1...1).map { Double($0) * pitch * 0.03 })
            text.append(best.character)
            margins.append(best.score - best.second)
            scores.append(best.score)
            runnersUp.append(best.runnerUp)
        }
        return Line(text: text, margins: margins, scores: scores, runnersUp: runnersUp)
    }

    /// The character whose template best matches the cell at `x`, at any of `shifts`; with its
    /// correlation, the best other character and its correlation, and the shift.
    private func match(_ image: PageImage, x: Double, width: Double, rows: Range<Int>, kind: MRZFormat.Kind, shifts: [Double])
        -> (character: Character, score: Double, second: Double, runnerUp: Character, shift: Double) {
        var each: [Double] = []
        return match(image, x: x, width: width, rows: rows, kind: kind, shifts: shifts, each: &each)
    }

    /// `match`, with each template's best correlation over the shifts written to `each` (by
    /// its place in `characters`) when `each` has room for them.
    private func match(_ image: PageImage, x: Double, width: Double, rows: Range<Int>, kind: MRZFormat.Kind, shifts: [Double], each: inout [Double])
        -> (character: Character, score: Double, second: Double, runnerUp: Character, shift: Double) {
        var best = (character: Character("<"), score: -2.0, second: -2.0, runnerUp: Character("<"), shift: 0.0)
        for shift in shifts {
            let sample = sampleCell(image, x: x + shift, width: width, rows: rows)
            for template in candidates[kind]! {
                let score = Self.dot(sample, template.pixels)
                if !each.isEmpty { each[template.index] = max(each[template.index], score) }
                if score > best.score {
                    if template.character != best.character { (best.second, best.runnerUp) = (best.score, best.character) }
                    (best.character, best.score, best.shift) = (template.character, score, shift)
                } else if score > best.second, template.character != best.character {
                    (best.second, best.runnerUp) = (score, template.character)
                }
            }
        }
        return best
    }

    /// Where the cell of each index starts: `(a + b i) / (1 + c i)` fitted through the cells'
    /// positions by least squares, and again without those more than a tenth of a pitch off.
    /// With `c` zero this is a straight grid; a line seen at a slight angle (what straightening
    /// left) has its pitch shrink along the line, which `c` follows.
    static func fitGrid(_ positions: [Double]) -> (Double) -> Double {
        func fit(_ points: [(i: Double, x: Double)]) -> ((Double) -> Double)? {
            // x (1 + c i) = a + b i, linear in a, b, c: the normal equations of [1, i, -i x] -> x.
            var m = [[Double]](repeating: [Double](repeating: 0, count: 4), count: 3)
            for p in points {
                let row = [1, p.i, -p.i * p.x]
                for r in 0..<3 {
                    for k in 0..<3 { m[r][k] += row[r] * row[k] }
                    m[r][3] += row[r] * p.x
                }
            }
            guard let solution = LinearSystem.solve(m, tolerance: 1e-9) else { return nil }
            let (a, b, c) = (solution[0], solution[1], solution[2])
            let last = Double(positions.count)
            // The grid must run forward over the whole line.
            guard 1 + c * last > 0.5, b - a * c > 0 else { return nil }
            return { i in (a + b * i) / (1 + c * i) }
        }
        let points = positions.enumerated().map { (i: Double($0.offset), x: $0.element) }
        // Points that fit no forward grid (never seen on a real line): first to last, evenly.
        let step = (positions.last! - positions.first!) / Double(max(1, positions.count - 1))
        let straight = { (i: Double) in positions.first! + step * i }
        guard let first = fit(points) else { return straight }
        let kept = points.filter { abs($0.x - first($0.i)) <= (first($0.i + 1) - first($0.i)) * 0.1 }
        return kept.count >= max(3, points.count / 2) ? fit(kept) ?? first : first
    }

    /// The cell at `x` (`width` wide, over `rows`), resampled to the template size, as ink
    /// (0-255), normalised (`normalise`), in lanes (`lanes`).
    private func sampleCell(_ image: PageImage, x: Double, width: Double, rows: Range<Int>) -> [SIMD8<Float>] {
        let sx = width / Double(cellWidth), sy = Double(rows.count) / Double(cellHeight)
        var cell = image.samples(xs: (0..<cellWidth).map { x + (Double($0) + 0.5) * sx - 0.5 },
                                 ys: (0..<cellHeight).map { Double(rows.lowerBound) + (Double($0) + 0.5) * sy - 0.5 })
        for i in cell.indices { cell[i] = 255 - cell[i] }
        Self.normalise(&cell)
        return Self.lanes(cell)
    }

    /// `values` in single precision, eight to a lane, the last lane padded with zeros: the
    /// correlations (`dot`) are the reader's innermost loop, and lanes of eight floats take a
    /// quarter of the steps of one double at a time.
    static func lanes(_ values: [Double]) -> [SIMD8<Float>] {
        (0..<((values.count + 7) / 8)).map { lane in
            var out = SIMD8<Float>(repeating: 0)
            for i in 0..<8 where lane * 8 + i < values.count { out[i] = Float(values[lane * 8 + i]) }
            return out
        }
    }

    /// The correlation of two normalised cells in lanes. Two running sums: one would wait on
    /// each addition before the next.
    static func dot(_ a: [SIMD8<Float>], _ b: [SIMD8<Float>]) -> Double {
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                let count = min(a.count, b.count)
                var s0 = SIMD8<Float>(repeating: 0), s1 = SIMD8<Float>(repeating: 0), i = 0
                while i + 2 <= count {
                    s0 += a[i] * b[i]
                    s1 += a[i + 1] * b[i + 1]
                    i += 2
                }
                if i < count { s0 += a[i] * b[i] }
                return Double((s0 + s1).sum())
            }
        }
    }

    /// Makes `values` zero mean and unit length: the dot product of two is their correlation.
    static func normalise(_ values: inout [Double]) {
        let mean = values.reduce(0, +) / Double(max(1, values.count))
        var norm = 0.0
        for i in values.indices {
            values[i] -= mean
            norm += values[i] * values[i]
        }
        norm = norm.squareRoot()
        guard norm > 0 else { return }
        for i in values.indices { values[i] /= norm }
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
        if keepShort { return bands.filter { $0.count >= 3 } }
        // A zone cut from a page may hold the edge of the line above or below it: a band that
        // touches the image's top or bottom is such a part, unless it is all there is.
        let tall = bands.filter { $0.count * 5 >= tallest }
        let inside = tall.filter { $0.lowerBound > 0 && $0.upperBound < height }
        return inside.count >= 2 ? inside : tall
    }

    /// Where a line's ink lies, segment by segment across `columns`: for each of `segments`
    /// slices, the middle column and the run of inked rows within `rows` that overlaps `core`
    /// most (ink of a neighbouring line, beyond a blank row, is left out). Along a line seen at
    /// an angle or slanted, each slice follows the line's local top and bottom, where the rows
    /// of the whole line would span its slant.
    static func segmentExtents(_ ink: [Bool], width: Int, rows: Range<Int>, core: Range<Int>, columns: Range<Int>, segments: Int)
        -> [(x: Double, rows: Range<Int>)] {
        guard columns.count >= segments, !rows.isEmpty else { return [] }
        var out: [(x: Double, rows: Range<Int>)] = []
        for s in 0..<segments {
            let x0 = columns.lowerBound + columns.count * s / segments, x1 = columns.lowerBound + columns.count * (s + 1) / segments
            var best: Range<Int>?, bestOverlap = 0, start: Int?
            for y in rows.lowerBound...rows.upperBound {
                let inked = y < rows.upperBound && (x0..<x1).contains { ink[y * width + $0] }
                if inked, start == nil { start = y }
                if !inked, let first = start {
                    let run = first..<y, overlap = run.clamped(to: core).count
                    if overlap > bestOverlap { (best, bestOverlap) = (run, overlap) }
                    start = nil
                }
            }
            if let best { out.append((Double(x0 + x1) / 2, best)) }
        }
        return out
    }

    /// The height of the characters of the line in `rows`, slice by slice (the upper quartile
    /// of `segmentExtents`' heights: fillers are lower): a line seen at an angle or slanted spans
    /// more rows than its characters are tall.
    static func characterHeight(_ ink: [Bool], width: Int, rows: Range<Int>, columns: Range<Int>) -> Int {
        let heights = segmentExtents(ink, width: width, rows: rows, core: rows, columns: columns, segments: 16).map(\.rows.count).sorted()
        return heights.isEmpty ? rows.count : heights[heights.count * 3 / 4]
    }

    /// How regularly the ink of `rows` repeats every `pitch` columns: the mean correlation of
    /// the columns' ink profile with itself shifted by one, two and three pitches.
    static func periodicity(_ ink: [Bool], width: Int, rows: Range<Int>, columns: Range<Int>, pitch: Double) -> Double {
        let profile = columns.map { x in Double(rows.reduce(0) { $0 + (ink[$1 * width + x] ? 1 : 0) }) }
        let mean = profile.reduce(0, +) / Double(max(1, profile.count))
        let centred = profile.map { $0 - mean }
        let energy = centred.reduce(0) { $0 + $1 * $1 }
        guard energy > 0 else { return 0 }
        return (1...3).reduce(0.0) { sum, k in
            let lag = Int((Double(k) * pitch).rounded())
            guard lag < centred.count else { return sum }
            return sum + (0..<(centred.count - lag)).reduce(0.0) { $0 + centred[$1] * centred[$1 + lag] } / energy
        } / 3
    }

    /// The sum of the 3x3 pixels around (`x`, `y`), which lies inside the image.
    static func neighbourhood(_ image: PageImage, _ x: Int, _ y: Int) -> Int {
        var sum = 0
        for dy in -1...1 { for dx in -1...1 { sum += Int(image[x + dx, y + dy]) } }
        return sum
    }

    /// The level (a sum of 3x3 pixels, noise averaged out where strokes are not) under which a
    /// pixel is faint ink: a third of the way from white to `threshold`, and 8 grey levels below
    /// the darkest paper between the lines `bands` (all but its darkest 0.1%).
    static func faintLevel(_ image: PageImage, threshold: UInt8, bands: [Range<Int>]) -> Int {
        let third = 9 * (255 - (255 - Int(threshold)) / 3)
        let between = zip(bands, bands.dropFirst()).flatMap { ($0.upperBound + 2)..<max($0.upperBound + 2, $1.lowerBound - 2) }
        var paper: [Int] = []
        for y in between where y >= 1 && y < image.height - 1 {
            for x in stride(from: 1, to: image.width - 1, by: 2) { paper.append(neighbourhood(image, x, y)) }
        }
        guard !paper.isEmpty else { return third }
        paper.sort()
        return min(third, paper[paper.count / 1000] - 9 * 8)
    }

    /// `columns` (a line's extent by the threshold) widened over faint characters next to
    /// either end: a reflection over a line's first or last characters leaves them a fraction
    /// of their contrast, and those characters set the line's grid. A column is faint ink where
    /// a fifth of its pixels (at least 4) are under `level` (`faintLevel`), and so is a column
    /// beside it; the extent grows over such columns up to 3 line heights, across gaps of at
    /// most one.
    static func faintExtent(_ image: PageImage, level: Int, rows: Range<Int>, columns: Range<Int>) -> Range<Int> {
        guard !columns.isEmpty else { return columns }
        let reach = 3 * rows.count, gap = rows.count
        let least = max(4, rows.count / 5)
        func faintColumn(_ x: Int) -> Bool {
            guard x >= 1, x < image.width - 1 else { return false }
            return rows.filter { y in y >= 1 && y < image.height - 1 && Self.neighbourhood(image, x, y) < level }.count >= least
        }
        // A stroke is at least two columns wide; a speck of dust or toner is not that tall.
        func inked(_ x: Int) -> Bool { faintColumn(x) && (faintColumn(x - 1) || faintColumn(x + 1)) }
        func grow(from start: Int, by step: Int) -> Int {
            var last = start, x = start + step
            while abs(x - start) <= reach, abs(x - last) <= gap {
                if inked(x) { last = x }
                x += step
            }
            return last
        }
        return grow(from: columns.lowerBound, by: -1)..<(grow(from: columns.upperBound - 1, by: 1) + 1)
    }

    /// The columns from the first to the last holding ink within `rows`: ink in at least 2 of
    /// the column's pixels and 2 of a neighbour's (a speck of dust or toner is not a stroke).
    static func extent(_ ink: [Bool], width: Int, rows: Range<Int>) -> Range<Int> {
        let counts = (0..<width).map { x in rows.reduce(0) { $0 + (ink[$1 * width + x] ? 1 : 0) } }
        func stroke(_ x: Int) -> Bool { counts[x] >= 2 && (x > 0 && counts[x - 1] >= 2 || x + 1 < width && counts[x + 1] >= 2) }
        guard let first = (0..<width).first(where: stroke), let last = (0..<width).last(where: stroke) else { return 0..<0 }
        return first..<(last + 1)
    }
}
