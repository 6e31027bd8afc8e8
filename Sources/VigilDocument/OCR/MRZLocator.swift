/// Finds the machine-readable zone on an upright image of a document: the last two or three
/// consecutive lines of text that run across most of the document with the rhythm of a
/// fixed-pitch line (dozens of characters), of one height.
public enum MRZLocator {
    /// The part of `image` holding the zone (with a small margin), nil when there is none.
    public static func zone(in image: PageImage) -> PageImage? { zones(in: image).first }

    /// Every part of `image` holding a zone, bottom first: more than one is more than one document.
    /// A zone's lines span at least `widthShare` of the image (a photo of a page: most of it).
    public static func zones(in image: PageImage, widthShare: Double = 0.6) -> [PageImage] {
        let threshold = MRZTextReader.otsu(image)
        let ink = image.pixels.map { $0 < threshold }
        let bands = MRZTextReader.lineBands(ink, width: image.width, height: image.height, keepShort: true)
        // A zone line: wide, and broken into many characters.
        let lines = bands.map { rows -> (rows: Range<Int>, columns: Range<Int>, height: Int, zoneLike: Bool) in
            let columns = MRZTextReader.extent(ink, width: image.width, rows: rows)
            let runs = characterRuns(ink, width: image.width, rows: rows, columns: columns)
            let height = MRZTextReader.characterHeight(ink, width: image.width, rows: rows, columns: columns)
            // Wide, of many characters, and each line much wider than tall (a TD1 line of 30 is
            // about 27 times as wide as its capitals are high; seen at 30 degrees, 17 times as
            // wide as its near end's are).
            return (rows, columns, height, Double(columns.count) >= Double(image.width) * widthShare && runs >= 20 && height * 15 <= columns.count)
        }
        // Groups of 2 or 3 consecutive zone-like lines of similar height, close together, from the last.
        var found: [PageImage] = []
        var index = lines.count - 1
        while index >= 0 {
            guard lines[index].zoneLike else { index -= 1; continue }
            var start = index
            // A zone's lines are at most a line's height apart (ICAO's line spacing).
            while start > 0, lines[start - 1].zoneLike, index - start + 1 < 3,
                  abs(lines[start - 1].height - lines[index].height) * 3 <= lines[index].height,
                  lines[start].rows.lowerBound - lines[start - 1].rows.upperBound <= lines[index].height * 3 / 2 { start -= 1 }
            let group = lines[start...index]
            if group.count >= 2 {
                let top = group.first!.rows.lowerBound, bottom = group.last!.rows.upperBound
                let left = group.map(\.columns.lowerBound).min()!, right = group.map(\.columns.upperBound).max()!
                // Half a line above and below; two lines' height either side, where the first or
                // last characters may be too faint for the threshold (a reflection over them).
                let margin = group.first!.rows.count / 2, side = 4 * margin
                found.append(crop(image, x: left - side, y: top - margin, width: right - left + 2 * side, height: bottom - top + 2 * margin))
            }
            index = start - 1
        }
        return found
    }

    /// Runs of columns holding ink within `rows`: about one per character on a zone line.
    static func characterRuns(_ ink: [Bool], width: Int, rows: Range<Int>, columns: Range<Int>) -> Int {
        var runs = 0, inRun = false
        for x in columns {
            let inked = rows.contains { ink[$0 * width + x] }
            if inked, !inRun { runs += 1 }
            inRun = inked
        }
        return runs
    }

    static func crop(_ image: PageImage, x: Int, y: Int, width: Int, height: Int) -> PageImage {
        var out = PageImage(width: width, height: height)
        for cy in 0..<height {
            for cx in 0..<width {
                let px = x + cx, py = y + cy
                if px >= 0, py >= 0, px < image.width, py < image.height { out[cx, cy] = image[px, py] }
            }
        }
        return out
    }
}
