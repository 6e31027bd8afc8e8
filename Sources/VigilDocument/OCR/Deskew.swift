import Foundation
import VigilCore

/// Straightens a page photographed turned by a few degrees: the angle at which its rows of ink
/// line up best (the row profile of the ink, turned, has the greatest variance), then the page
/// turned back. Lines of text make that profile sharp only when they are level.
public enum Deskew {
    /// The most ink points an angle is tried on.
    static let mostPoints = 200_000

    /// The page's tilt in degrees (as `rotated` turns: straighten with its negative), within
    /// `limit`: a search by half degrees, then by twentieths around the best.
    /// Only tilts of at least `beyond` degrees either way are searched when it is given (the
    /// nearer ones searched already).
    public static func angle(of image: PageImage, limit: Double = 15, beyond: Double = 0) -> Double {
        // Ink points of the image reduced to about 1,200 pixels wide: fast, and a twentieth of a
        // degree moves a line's end by a pixel.
        let scale = max(1, image.width / 1200)
        let threshold = MRZTextReader.otsu(image)
        var points: [(Double, Double)] = []
        for y in stride(from: 0, to: image.height, by: scale) {
            for x in stride(from: 0, to: image.width, by: scale) where image[x, y] < threshold {
                points.append((Double(x / scale), Double(y / scale)))
            }
        }
        guard points.count > 50 else { return 0 }
        // Every so many points where there are more than `mostPoints`: a page of text has fewer,
        // and noise or a gradient, half of whose pixels are ink, cost 2 s to search every way
        // (issue 39's turns) with all of them.
        if points.count > mostPoints {
            let step = (points.count + mostPoints - 1) / mostPoints
            points = stride(from: 0, to: points.count, by: step).map { points[$0] }
        }
        let height = image.height / scale, width = image.width / scale
        let rows = height + width + 2
        func sharpest<S: Sequence<Double>>(_ angles: S) -> Double {
            var best = (variance: -1.0, angle: 0.0)
            for k in angles {
                let variance = profileVariance(points, degrees: k, rows: rows, offset: width)
                if variance > best.variance { best = (variance, k) }
            }
            return best.angle
        }
        let coarse = sharpest(stride(from: -limit, through: limit, by: 0.5).filter { abs($0) >= beyond })
        return sharpest(stride(from: coarse - 0.5, through: coarse + 0.5, by: 0.05))
    }

    /// The variance of the row profile of `points` turned back by `degrees`.
    private static func profileVariance(_ points: [(Double, Double)], degrees k: Double, rows: Int, offset width: Int) -> Double {
        let radians = k * Double.pi / 180
        let (s, c) = (sin(radians), cos(radians))
        var histogram = [Int32](repeating: 0, count: rows)
        // The nearest row, by truncating a value kept positive: rounding called libm per point.
        let shift = Double(width) + 0.5
        histogram.withUnsafeMutableBufferPointer { histogram in
            for (x, y) in points {
                // The row of the point once the page is turned back by the angle tried.
                let row = y * c - x * s + shift
                if row >= 0, row < Double(rows) { histogram[Int(row)] += 1 }
            }
        }
        let mean = Double(histogram.reduce(0, +)) / Double(rows)
        return histogram.reduce(0) { $0 + (Double($1) - mean) * (Double($1) - mean) }
    }

    /// Where the pixel at `point` of an image `width` x `height` turned by `degrees` (`rotated`)
    /// comes from in the image before it was turned.
    public static func source(of point: Point2D, turnedBy degrees: Double, width: Int, height: Int) -> Point2D {
        Turn(degrees: degrees, width: width, height: height).source(point.x, point.y)
    }

    /// `image` turned by `degrees` about its centre (positive: clockwise on screen), the corners
    /// filled white.
    public static func rotated(_ image: PageImage, by degrees: Double) -> PageImage {
        guard degrees != 0 else { return image }
        let turn = Turn(degrees: degrees, width: image.width, height: image.height)
        let width = image.width, height = image.height
        var out = PageImage(width: width, height: height)
        image.pixels.withUnsafeBufferPointer { p in
            out.pixels.withUnsafeMutableBufferPointer { out in
                for y in 0..<height {
                    for x in 0..<width {
                        let from = turn.source(Double(x), Double(y))
                        let x0 = Int(from.x.rounded(.down)), y0 = Int(from.y.rounded(.down))
                        guard x0 >= 0, y0 >= 0, x0 + 1 < width, y0 + 1 < height else {
                            out[y * width + x] = UInt8(image.sample(from.x, from.y))
                            continue
                        }
                        // `sample`'s blend, without its bounds checks.
                        let ax = from.x - Double(x0), ay = from.y - Double(y0), top = y0 * width, bottom = top + width
                        out[y * width + x] = UInt8(PageImage.blend(Double(p[top + x0]), Double(p[top + x0 + 1]), Double(p[bottom + x0]),
                                                                   Double(p[bottom + x0 + 1]), ax: ax, ay: ay))
                    }
                }
            }
        }
        return out
    }

    /// A turn about an image's centre, as the map from a pixel of the turned image back to the
    /// image before it was turned (sine and cosine worked out once, not per pixel).
    private struct Turn {
        let s: Double, c: Double, cx: Double, cy: Double

        init(degrees: Double, width: Int, height: Int) {
            let radians = degrees * Double.pi / 180
            (s, c) = (sin(radians), cos(radians))
            (cx, cy) = (Double(width) / 2, Double(height) / 2)
        }

        func source(_ x: Double, _ y: Double) -> Point2D {
            let dx = x - cx, dy = y - cy
            return Point2D(x: c * dx + s * dy + cx, y: -s * dx + c * dy + cy)
        }
    }
}
