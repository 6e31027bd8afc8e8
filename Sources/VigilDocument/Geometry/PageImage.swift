import VigilCore
import VigilFace

/// An 8-bit greyscale image of a page or part of one, row by row (0 black, 255 white), that can
/// be drawn on: what the document reader works on. (VigilFace's `GrayImage` is a read-only crop
/// for face detection.)
public struct PageImage: Sendable, Equatable {
    public let width: Int, height: Int
    public var pixels: [UInt8]

    /// A `width` x `height` image filled with `value`.
    public init(width: Int, height: Int, value: UInt8 = 255) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: value, count: width * height)
    }

    public subscript(x: Int, y: Int) -> UInt8 {
        get { pixels[y * width + x] }
        set { pixels[y * width + x] = newValue }
    }

    /// Prints `image` over this one with its top-left corner at (`x`, `y`), keeping the darker
    /// of the two at each pixel (ink on paper); rows from `belowY` on are left as they are.
    public mutating func overprint(_ image: PageImage, x: Int, y: Int, belowY: Int? = nil) {
        for py in 0..<image.height where y + py >= 0 && y + py < min(height, belowY ?? height) {
            for px in 0..<image.width where x + px >= 0 && x + px < width {
                self[x + px, y + py] = min(self[x + px, y + py], image[px, py])
            }
        }
    }

    /// Puts `image` over this one with its top-left corner at (`x`, `y`), replacing what was there.
    public mutating func paste(_ image: PageImage, x: Int, y: Int) {
        for py in 0..<image.height where y + py >= 0 && y + py < height {
            for px in 0..<image.width where x + px >= 0 && x + px < width { self[x + px, y + py] = image[px, py] }
        }
    }

    /// The grey at (`x`, `y`) between pixel centres, bilinear; white outside the image.
    public func sample(_ x: Double, _ y: Double) -> Double {
        let x0 = Int(x.rounded(.down)), y0 = Int(y.rounded(.down))
        let ax = x - Double(x0), ay = y - Double(y0)
        func at(_ px: Int, _ py: Int) -> Double {
            guard px >= 0, py >= 0, px < width, py < height else { return 255 }
            return Double(self[px, py])
        }
        return Self.blend(at(x0, y0), at(x0 + 1, y0), at(x0, y0 + 1), at(x0 + 1, y0 + 1), ax: ax, ay: ay)
    }

    /// The bilinear blend of a pixel `a`, its right neighbour `b`, the one below `c` and below
    /// right `d`, at fractions `ax` across and `ay` down.
    @inline(__always)
    static func blend(_ a: Double, _ b: Double, _ c: Double, _ d: Double, ax: Double, ay: Double) -> Double {
        (a * (1 - ax) + b * ax) * (1 - ay) + (c * (1 - ax) + d * ax) * ay
    }

    /// `sample` at every crossing of `xs` and `ys`, row by row: the same values, with each
    /// coordinate split into pixel and fraction once rather than at every crossing, and the
    /// pixels read without a bounds check where the grid lies inside the image.
    public func samples(xs: [Double], ys: [Double]) -> [Double] {
        func split(_ values: [Double]) -> [(whole: Int, fraction: Double)] {
            values.map { v in
                let whole = Int(v.rounded(.down))
                return (whole, v - Double(whole))
            }
        }
        let columns = split(xs), rows = split(ys)
        let inside = columns.allSatisfy { $0.whole >= 0 && $0.whole + 1 < width } && rows.allSatisfy { $0.whole >= 0 && $0.whole + 1 < height }
        var out = [Double](repeating: 0, count: xs.count * ys.count)
        guard inside else {
            for (j, y) in ys.enumerated() {
                for (i, x) in xs.enumerated() { out[j * xs.count + i] = sample(x, y) }
            }
            return out
        }
        pixels.withUnsafeBufferPointer { p in
            out.withUnsafeMutableBufferPointer { out in
                var k = 0
                for (y0, ay) in rows {
                    let top = y0 * width, bottom = top + width
                    for (x0, ax) in columns {
                        out[k] = Self.blend(Double(p[top + x0]), Double(p[top + x0 + 1]), Double(p[bottom + x0]), Double(p[bottom + x0 + 1]), ax: ax, ay: ay)
                        k += 1
                    }
                }
            }
        }
        return out
    }

    /// A `width` x `height` image whose pixel (x, y) is this one's at `source` of (x, y); where
    /// that falls outside this image, `outside` when given (what lies around a page), else the
    /// blend with white that `sample` gives.
    public func warped(width: Int, height: Int, source: Homography, outside: UInt8? = nil) -> PageImage {
        var out = PageImage(width: width, height: height, value: outside ?? 255)
        for y in 0..<height {
            for x in 0..<width {
                let from = source.map(Point2D(x: Double(x), y: Double(y)))
                if outside != nil, !(from.x >= 0 && from.y >= 0 && from.x < Double(self.width - 1) && from.y < Double(self.height - 1)) { continue }
                out[x, y] = UInt8(max(0, min(255, sample(from.x, from.y).rounded())))
            }
        }
        return out
    }

    /// This image turned by `quarters` quarter turns clockwise (1 or 3; any other value leaves
    /// it as it is).
    public func quarterTurned(_ quarters: Int) -> PageImage {
        guard quarters == 1 || quarters == 3 else { return self }
        var out = PageImage(width: height, height: width)
        for y in 0..<out.height {
            for x in 0..<out.width { out[x, y] = quarters == 1 ? self[y, height - 1 - x] : self[width - 1 - y, x] }
        }
        return out
    }

    /// Where `point` of an image `width` x `height` turned by `quarters` (`quarterTurned`) lies
    /// on the image before it was turned.
    public static func sourceOfQuarterTurned(_ point: Point2D, _ quarters: Int, width: Int, height: Int) -> Point2D {
        switch quarters {
        case 1: Point2D(x: point.y, y: Double(height) - point.x)
        case 3: Point2D(x: Double(width) - point.y, y: point.x)
        default: point
        }
    }

    /// The page as an RGB image, grey in all three channels: to encode or to look for faces.
    public func image() throws(ImageError) -> Image {
        try Image(rgb: pixels.flatMap { [$0, $0, $0] }, width: width, height: height)
    }

    /// This image reduced to at most `pixels` pixels, each output pixel the mean of the source
    /// pixels it covers (the same proportions, each side at least 1); itself when it is no larger.
    public func shrunk(toAtMost pixels: Int) -> PageImage {
        guard width * height > pixels, pixels > 0 else { return self }
        let factor = (Double(pixels) / Double(width * height)).squareRoot()
        let outWidth = max(1, Int(Double(width) * factor)), outHeight = max(1, Int(Double(height) * factor))
        var out = PageImage(width: outWidth, height: outHeight)
        self.pixels.withUnsafeBufferPointer { source in
            out.pixels.withUnsafeMutableBufferPointer { target in
                for oy in 0..<outHeight {
                    let y0 = oy * height / outHeight, y1 = max(y0 + 1, (oy + 1) * height / outHeight)
                    for ox in 0..<outWidth {
                        let x0 = ox * width / outWidth, x1 = max(x0 + 1, (ox + 1) * width / outWidth)
                        var sum = 0
                        for y in y0..<y1 {
                            for x in x0..<x1 { sum += Int(source[y * width + x]) }
                        }
                        target[oy * outWidth + ox] = UInt8(sum / ((y1 - y0) * (x1 - x0)))
                    }
                }
            }
        }
        return out
    }

    /// The luma (BT.601) of interleaved RGB pixels.
    public init(rgb: [UInt8], width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = (0..<(width * height)).map { i -> UInt8 in
            let r = 299 * Int(rgb[3 * i]), g = 587 * Int(rgb[3 * i + 1]), b = 114 * Int(rgb[3 * i + 2])
            return UInt8((r + g + b) / 1000)
        }
    }
}
