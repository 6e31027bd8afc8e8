import VigilCore

/// Lines of text found from their characters: the ink's connected pieces, chained left to right
/// where they sit side by side at one height, whatever else shares their rows. A zone's lines
/// found this way need not span any share of the photo, and a hand, a table's grain or the other
/// page of a booklet beside them does not merge them (the row profiles of `MRZLocator` take
/// every pixel of a row).
enum CharacterLines {
    /// A connected piece of ink: its bounding box (`maxX`, `maxY` inclusive).
    struct Piece {
        var minX: Int, maxX: Int, minY: Int, maxY: Int

        var width: Int { maxX - minX + 1 }
        var height: Int { maxY - minY + 1 }
        var centreY: Double { Double(minY + maxY) / 2 }
    }

    /// A line of characters.
    struct Line {
        /// The pieces, left to right.
        let pieces: [Piece]
        /// The tallest pieces' height: the capitals'.
        let height: Int
        let minX: Int, maxX: Int, minY: Int, maxY: Int

        init(_ pieces: [Piece]) {
            self.pieces = pieces
            let heights = pieces.map(\.height).sorted()
            height = heights[heights.count * 9 / 10]
            (minX, maxX) = (pieces.map(\.minX).min()!, pieces.map(\.maxX).max()!)
            (minY, maxY) = (pieces.map(\.minY).min()!, pieces.map(\.maxY).max()!)
        }

        var width: Int { maxX - minX + 1 }
        var centreY: Double { Double(minY + maxY) / 2 }

        /// How many of its pieces are fillers (`<`: `isChevron`, or `fillerSized` in small print);
        /// a run of them merged into one piece counts for each filler's width in it.
        var fillers = 0

        /// The least-squares line through the baselines of the line's capitals: `at` x = 0.
        var baseline: (at: Double, slope: Double) {
            let capitals = pieces.filter { $0.height * 10 >= height * 8 }
            guard capitals.count >= 2 else { return (Double(maxY), 0) }
            let n = Double(capitals.count)
            let mx = capitals.reduce(0.0) { $0 + Double($1.minX + $1.maxX) / 2 } / n, my = capitals.reduce(0.0) { $0 + Double($1.maxY) } / n
            var sxx = 0.0, sxy = 0.0
            for piece in capitals {
                let dx = Double(piece.minX + piece.maxX) / 2 - mx
                sxx += dx * dx
                sxy += dx * (Double(piece.maxY) - my)
            }
            let slope = sxx > 0 ? sxy / sxx : 0
            return (my - slope * mx, slope)
        }
    }

    /// Two or three lines that lie as a zone's: where, with a margin, and the mean slope of the
    /// lines.
    struct Zone {
        let frame: Rect
        let slope: Double
    }

    /// The smallest and largest capital searched for, in pixels: below 6 nothing reads, and the
    /// working image (`DocumentReader.workingPixels`) holds no zone with capitals over 100.
    static let heights = 6...100
    /// The fewest pieces a zone's line is made of: 30 characters at the least, of which runs of
    /// fillers may merge into one piece.
    static let leastPieces = 12
    /// The fewest fillers a zone shows: a name is followed by two, its padding by more.
    static let leastFillers = 3

    /// The chains of at least `leastPieces` of `pieces`, each left to right: every piece linked
    /// to the nearest piece starting to its right within a capital's height, centred at its
    /// height (a filler sits mid-height), no less than 0.4 as tall; where two pieces claim one
    /// neighbour, the nearer keeps it.
    static func chains(of pieces: [Piece]) -> [[Piece]] {
        let pieces = pieces.filter {
            $0.height >= heights.lowerBound / 2 && $0.height <= heights.upperBound && $0.width <= 12 * $0.height
        }.sorted { $0.minX < $1.minX }
        var next = [Int?](repeating: nil, count: pieces.count), previous = [Int?](repeating: nil, count: pieces.count)
        for (i, a) in pieces.enumerated() {
            var best: (index: Int, gap: Int)?
            var j = i + 1
            // A neighbour is at most 2.5 times as tall, so it starts within that of `a`.
            while j < pieces.count, pieces[j].minX <= a.maxX + 5 * a.height / 2 + 1 {
                let b = pieces[j], tall = max(a.height, b.height), gap = b.minX - a.maxX
                if b.minX > a.minX, gap <= tall, abs(b.centreY - a.centreY) <= 0.3 * Double(tall), min(a.height, b.height) * 5 >= tall * 2,
                   gap < best?.gap ?? .max {
                    best = (j, gap)
                }
                j += 1
            }
            guard let best else { continue }
            if let rival = previous[best.index] {
                guard pieces[best.index].minX - pieces[rival].maxX > best.gap else { continue }
                next[rival] = nil
            }
            next[i] = best.index
            previous[best.index] = i
        }
        return pieces.indices.filter { previous[$0] == nil }.compactMap { start in
            var chain = [pieces[start]], at = start
            while let following = next[at] {
                chain.append(pieces[following])
                at = following
            }
            return chain.count >= leastPieces ? chain : nil
        }
    }

    /// Whether `pieces` make lines of print either way up or on their side (chained along rows
    /// or along columns): a wall, noise or a gradient makes none.
    static func hasLines(_ pieces: [Piece]) -> Bool {
        !chains(of: pieces).isEmpty || !chains(of: pieces.map { Piece(minX: $0.minY, maxX: $0.maxY, minY: $0.minX, maxY: $0.maxX) }).isEmpty
    }

    /// The lines of at least `leastPieces` pieces on `image`, each at least 12 times as wide as
    /// its capitals are high, top to bottom.
    static func lines(in image: PageImage) -> [Line] {
        let threshold = MRZTextReader.otsu(image)
        return lines(in: image, pieces: self.pieces(image, threshold: threshold), threshold: threshold)
    }

    /// `lines(in:)` from the `pieces` of `image` darker than `threshold`, found already.
    static func lines(in image: PageImage, pieces: [Piece], threshold: UInt8) -> [Line] {
        var lines: [Line] = []
        for var chain in chains(of: pieces) {
            // A rule drawn beside the line (a frame round the zone) is taller than its capitals,
            // a speck beside it much smaller.
            let capitals = Line(chain).height
            func beside(_ piece: Piece) -> Bool { piece.height * 4 > capitals * 5 || piece.height * 2 < capitals }
            while let first = chain.first, beside(first) { chain.removeFirst() }
            while let last = chain.last, beside(last) { chain.removeLast() }
            guard chain.count >= leastPieces else { continue }
            var line = Line(chain)
            guard heights.contains(line.height), line.width >= 12 * line.height else { continue }
            line.fillers = chain.indices.reduce(0) { count, i in
                let piece = chain[i]
                guard piece.height * 2 >= line.height, isChevron(piece, image, threshold: threshold) || fillerSized(i, of: chain, capitals: line.height) else { return count }
                return count + max(1, Int((Double(piece.width) / (0.65 * Double(piece.height))).rounded()))
            }
            lines.append(line)
        }
        return lines.sorted { $0.centreY < $1.centreY }
    }

    /// Where two or three lines of `lines` lie one under another as a zone's do: capitals of one
    /// height, a line's height or so apart, one over the other and of nearly one length (a
    /// line's fillers may be lost to the chaining), with `leastFillers` or with as many pieces
    /// on every line as a zone's has characters; bottom first, each framed with half a
    /// capital's height above and below and two either side.
    static func zones(_ lines: [Line]) -> [Zone] {
        func stacked(_ upper: Line, _ lower: Line) -> Bool {
            let tall = Double(max(upper.height, lower.height)), spacing = lower.centreY - upper.centreY
            return Double(min(upper.height, lower.height)) >= 0.75 * tall && spacing >= 1.2 * tall && spacing <= 3 * tall
                && Double(min(upper.maxX, lower.maxX) - max(upper.minX, lower.minX)) >= 0.8 * Double(min(upper.width, lower.width))
                && Double(min(upper.width, lower.width)) >= 0.7 * Double(max(upper.width, lower.width))
        }
        var found: [Zone] = [], used = Set<Int>()
        for last in lines.indices.reversed() where !used.contains(last) {
            var group = [last]
            // The nearest line above that stacks on the group's top line, up to three lines.
            while group.count < 3, let above = (0..<group[0]).reversed().first(where: { !used.contains($0) && stacked(lines[$0], lines[group[0]]) }) {
                group.insert(above, at: 0)
            }
            let members = group.map { lines[$0] }
            // A zone's lines hold 30, 36 or 44 characters each: as many pieces on every line,
            // where no two characters touch, is a zone whatever its fillers look like.
            let counted = Set(members.map(\.pieces.count)).count == 1 && [30, 36, 44].contains(members[0].pieces.count)
            guard group.count >= 2, counted || members.reduce(0, { $0 + $1.fillers }) >= leastFillers else { continue }
            used.formUnion(group)
            let height = members.map(\.height).max()!
            let left = members.map(\.minX).min()!, right = members.map(\.maxX).max()!
            let top = members.map(\.minY).min()!, bottom = members.map(\.maxY).max()!
            found.append(Zone(frame: Rect(x: Double(left - 2 * height), y: Double(top - height / 2), width: Double(right - left + 1 + 4 * height),
                                          height: Double(bottom - top + 1 + height)),
                              slope: members.reduce(0.0) { $0 + $1.baseline.slope } / Double(members.count)))
        }
        return found
    }

    /// Whether the piece at `index` of `chain` is sized and placed as a filler where its shape
    /// is too small to tell (capitals of about 10 pixels): between 0.6 and 0.87 of the capitals'
    /// height, wide, and centred on the capitals within six places either way (a page curves,
    /// and the line with it; in a long run of fillers there may be none). Lower-case letters sit
    /// lower; dots, commas and hyphens are smaller.
    static func fillerSized(_ index: Int, of chain: [Piece], capitals: Int) -> Bool {
        let piece = chain[index], tall = Double(capitals), h = Double(piece.height)
        guard h >= 0.6 * tall, h <= 0.87 * tall, Double(piece.width) >= 0.4 * tall else { return false }
        let near = chain[max(0, index - 6)..<min(chain.count, index + 7)].filter { Double($0.height) >= 0.9 * tall }
        return near.isEmpty || abs(piece.centreY - near.reduce(0.0) { $0 + $1.centreY } / Double(near.count)) <= 0.1 * tall
    }

    /// Whether `piece` of `image` is shaped as a filler (`<`, OCR-B's chevron, or a run of them):
    /// its left quarter inked only about its middle row, its right quarter at its top and bottom
    /// and not at its middle. No letter or digit has both (`K` has a stem on the left, `X` ink at
    /// the left's top). Its height tells nothing: fillers stand from three quarters of the
    /// capitals to nearly their height, depending on the print.
    static func isChevron(_ piece: Piece, _ image: PageImage, threshold: UInt8) -> Bool {
        let w = piece.width, h = piece.height
        guard w >= 4, h >= 5 else { return false }
        // The rows holding ink within columns `xs`, as fractions of the piece's height.
        func inkedRows(_ xs: ClosedRange<Int>) -> [Double] {
            (piece.minY...piece.maxY).filter { y in xs.contains { image[$0, y] < threshold } }.map { Double($0 - piece.minY) / Double(h - 1) }
        }
        let left = inkedRows(piece.minX...(piece.minX + max(0, w / 4 - 1))), right = inkedRows((piece.maxX - max(0, w / 4 - 1))...piece.maxX)
        guard let leftTop = left.min(), let leftBottom = left.max(), !right.isEmpty else { return false }
        return leftTop >= 0.2 && leftBottom <= 0.8 && right.contains { $0 <= 0.25 } && right.contains { $0 >= 0.75 } && !right.contains { $0 > 0.4 && $0 < 0.6 }
    }

    /// The 8-connected pieces of the pixels of `image` darker than `threshold`, found run by run
    /// (a union of the runs that touch from one row to the next).
    static func pieces(_ image: PageImage, threshold: UInt8) -> [Piece] {
        var parent: [Int32] = [], boxes: [Piece] = []
        func root(_ i: Int32) -> Int32 {
            var i = i
            while parent[Int(i)] != i {
                parent[Int(i)] = parent[Int(parent[Int(i)])]
                i = parent[Int(i)]
            }
            return i
        }
        var above: [(start: Int, end: Int, label: Int32)] = [], current: [(start: Int, end: Int, label: Int32)] = []
        image.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<image.height {
                current.removeAll(keepingCapacity: true)
                let row = y * image.width
                var x = 0, k = 0
                while x < image.width {
                    guard pixels[row + x] < threshold else { x += 1; continue }
                    let start = x
                    while x < image.width, pixels[row + x] < threshold { x += 1 }
                    let end = x - 1
                    var label = Int32(parent.count)
                    parent.append(label)
                    boxes.append(Piece(minX: start, maxX: end, minY: y, maxY: y))
                    // Runs of the row above that touch this one, corners included.
                    while k < above.count, above[k].end < start - 1 { k += 1 }
                    var m = k
                    while m < above.count, above[m].start <= end + 1 {
                        let a = root(above[m].label), b = root(label)
                        if a != b {
                            let (keep, drop) = a < b ? (a, b) : (b, a)
                            parent[Int(drop)] = keep
                            label = keep
                        }
                        m += 1
                    }
                    current.append((start, end, label))
                }
                swap(&above, &current)
            }
        }
        // Each run's box joins its root's, the pieces in the order their first runs were found:
        // a dictionary's order changes from process to process, and pieces that start in one
        // column would be chained differently from one read to the next.
        var merged: [Piece] = [], slot = [Int](repeating: -1, count: boxes.count)
        for i in boxes.indices {
            let r = Int(root(Int32(i))), box = boxes[i]
            if slot[r] < 0 {
                slot[r] = merged.count
                merged.append(box)
            } else {
                let k = slot[r]
                merged[k].minX = min(merged[k].minX, box.minX)
                merged[k].maxX = max(merged[k].maxX, box.maxX)
                merged[k].minY = min(merged[k].minY, box.minY)
                merged[k].maxY = max(merged[k].maxY, box.maxY)
            }
        }
        return merged
    }
}
