import VigilCore
import VigilFace

/// Signs that a photo shows a copy of the document rather than the document, measured on the
/// page above its machine-readable zone (the portrait and the printed fields): a screen's pixel
/// grid beating with the camera's (`ScreenPatternMeter`, as on faces), or no colour at all (a
/// greyscale copy; identity documents are printed in colour). Informational: a page under
/// coloured light, or a document printed in grey, can give either.
public enum DocumentSigns {
    /// A screen pattern above this is a screen. In the evaluation of 2026-12-04 (15 documents a
    /// presentation) pages gave 3.7-19.9 and screens 49-180.
    static let screenPattern = 40.0
    /// A colourfulness below this is a greyscale copy: pages gave 11-32, copies 0.9-1.0.
    static let photocopyColourfulness = 4.0

    /// The signs on `photo`, whose zone lies at `zone` (top left, top right, bottom right,
    /// bottom left, as `DocumentReader` gives them).
    public static func measure(_ photo: Image, zone: [Point2D]) -> DocumentResult.Signs {
        let box = pageAbove(zone, width: photo.width, height: photo.height)
        let pattern = box.area > 0 ? ScreenPatternMeter.periodicity(in: photo, box: box) : 0
        let colour = colourfulness(photo, box: box)
        // The pattern is measured on the colour (red minus blue): on a page without colour that
        // is its brightness scaled by the light's tint, and a grey copy's guilloche beats as
        // strongly as a screen's grid. Only a page with colour can show a screen's.
        let grey = colour < photocopyColourfulness
        return DocumentResult.Signs(screen: !grey && pattern > screenPattern, photocopy: grey,
                                    screenPattern: (pattern * 10).rounded() / 10, colourfulness: (colour * 10).rounded() / 10)
    }

    /// The box around the page above the zone: as wide as the zone and four times as tall,
    /// within the photo.
    static func pageAbove(_ zone: [Point2D], width: Int, height: Int) -> Rect {
        guard zone.count == 4 else { return Rect(x: 0, y: 0, width: 0, height: 0) }
        let up = Point2D(x: zone[0].x - zone[3].x, y: zone[0].y - zone[3].y)
        let corners = [zone[0], zone[1]] + [zone[0], zone[1]].map { Point2D(x: $0.x + 4 * up.x, y: $0.y + 4 * up.y) }
        let x0 = max(0, corners.map(\.x).min()!), x1 = min(Double(width), corners.map(\.x).max()!)
        let y0 = max(0, corners.map(\.y).min()!), y1 = min(Double(height), corners.map(\.y).max()!)
        return Rect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }

    /// The spread of the colour over `box`, as a percentage of brightness: sqrt(var(R - G) +
    /// var((R + G) / 2 - B)), each divided by the pixel's mean of R, G and B, over a grid of about
    /// 100,000 pixels brighter than 60 (in the dark, colour is noise). A tint of the room's light
    /// multiplies every channel alike and does not count.
    static func colourfulness(_ photo: Image, box: Rect) -> Double {
        guard box.area >= 1 else { return 0 }
        let step = max(1, Int((box.area / 100_000).squareRoot()))
        var n = 0.0, rg = (0.0, 0.0), yb = (0.0, 0.0)
        for y in stride(from: Int(box.y), to: Int(box.y + box.height), by: step) {
            for x in stride(from: Int(box.x), to: Int(box.x + box.width), by: step) {
                let i = (y * photo.width + x) * 3
                let r = Double(photo.rgb[i]), g = Double(photo.rgb[i + 1]), b = Double(photo.rgb[i + 2]), mean = (r + g + b) / 3
                guard mean > 60 else { continue }
                let a = 100 * (r - g) / mean, o = 100 * ((r + g) / 2 - b) / mean
                rg = (rg.0 + a, rg.1 + a * a)
                yb = (yb.0 + o, yb.1 + o * o)
                n += 1
            }
        }
        guard n > 1 else { return 0 }
        let variance = { (sum: (Double, Double)) in max(0, sum.1 / n - (sum.0 / n) * (sum.0 / n)) }
        return (variance(rg) + variance(yb)).squareRoot()
    }
}
