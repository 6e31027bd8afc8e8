import VigilCore

/// Finds the machine-readable zone on an upright image of a document: the last two or three
/// consecutive lines of text that run across most of the document with the rhythm of a
/// fixed-pitch line (dozens of characters), of one height.
public enum MRZLocator {
    /// The part of `image` holding the zone (with a small margin), nil when there is none.
    public static func zone(in image: PageImage) -> PageImage? { zones(in: image).first }

    /// Every part of `image` holding a zone, bottom first: more than one is more than one document.
    /// A zone's lines span at least `widthShare` of the image (a photo of a page: most of it).
    public static func zones(in image: PageImage, widthShare: Double = 0.6) -> [PageImage] {
        frames(in: image, widthShare: widthShare).map { crop(image, $0) }
    }

    /// Where `zones` lies on `image`, each with its margin.
    public static func frames(in image: PageImage, widthShare: Double = 0.6) -> [Rect] {
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
            // A band of rows twice as tall as its characters is a picture, not a line (a line
            // slanted by a page seen at 30 degrees spans 1.4 times its height).
            return (rows, columns, height, Double(columns.count) >= Double(image.width) * widthShare && runs >= 20 && height * 15 <= columns.count
                        && rows.count <= 2 * height)
        }
        // Groups of 2 or 3 consecutive zone-like lines of similar height, close together, from the last.
        var found: [Rect] = []
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
                found.append(Rect(x: Double(left - side), y: Double(top - margin), width: Double(right - left + 2 * side), height: Double(bottom - top + 2 * margin)))
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

    /// The part of `image` within `frame`, white beyond its edges.
    static func crop(_ image: PageImage, _ frame: Rect) -> PageImage {
        let x = Int(frame.x), y = Int(frame.y), width = Int(frame.width), height = Int(frame.height)
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
