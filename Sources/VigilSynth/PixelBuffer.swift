import VigilCore
import VigilFace

/// A floating-point RGB image (0...255 per channel) that rendering steps write into before the
/// frame is quantised and encoded.
public struct PixelBuffer: Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Interleaved RGB, row-major.
    public var rgb: [Float]

    /// A buffer filled with one colour.
    public init(width: Int, height: Int, fill: (Float, Float, Float) = (0, 0, 0)) {
        precondition(width > 0 && height > 0, "size must be positive")
        self.width = width
        self.height = height
        var data = [Float](repeating: 0, count: width * height * 3)
        for i in 0..<(width * height) {
            data[i * 3] = fill.0
            data[i * 3 + 1] = fill.1
            data[i * 3 + 2] = fill.2
        }
        rgb = data
    }

    /// The pixels of a decoded image.
    public init(_ image: Image) {
        width = image.width
        height = image.height
        rgb = image.rgb.map { Float($0) }
    }

    /// Bilinear sample at (x, y), coordinates clamped to the edge.
    @inline(__always)
    func sample(_ x: Double, _ y: Double) -> (Float, Float, Float) {
        let fx = Float(min(max(x, 0), Double(width - 1))), fy = Float(min(max(y, 0), Double(height - 1)))
        let x0 = Int(fx), y0 = Int(fy)
        let x1 = min(x0 + 1, width - 1), y1 = min(y0 + 1, height - 1)
        let ax = fx - Float(x0), ay = fy - Float(y0)
        return rgb.withUnsafeBufferPointer { p in
            let a = (y0 * width + x0) * 3, b = (y0 * width + x1) * 3, c = (y1 * width + x0) * 3, d = (y1 * width + x1) * 3
            func mix(_ k: Int) -> Float {
                let top = p[a + k] + (p[b + k] - p[a + k]) * ax
                let bottom = p[c + k] + (p[d + k] - p[c + k]) * ax
                return top + (bottom - top) * ay
            }
            return (mix(0), mix(1), mix(2))
        }
    }

    /// This frame as a camera of `width` x `height` would frame the same scene: a centred view
    /// `viewWidth` source pixels wide (default: the widest that fits the new aspect ratio) scaled
    /// bilinearly; where the view reaches past the source's top or bottom, its edge rows extend.
    public func resampled(width newWidth: Int, height newHeight: Int, viewWidth: Double? = nil) -> PixelBuffer {
        let aspect = Double(newWidth) / Double(newHeight)
        let cropWidth = viewWidth ?? min(Double(width), Double(height) * aspect), cropHeight = cropWidth / aspect
        let x0 = (Double(width) - cropWidth) / 2, y0 = (Double(height) - cropHeight) / 2
        let sx = cropWidth / Double(newWidth), sy = cropHeight / Double(newHeight)
        var out = PixelBuffer(width: newWidth, height: newHeight)
        out.rgb.withUnsafeMutableBufferPointer { d in
            for y in 0..<newHeight {
                for x in 0..<newWidth {
                    let (r, g, b) = sample(x0 + (Double(x) + 0.5) * sx - 0.5, y0 + (Double(y) + 0.5) * sy - 0.5)
                    let i = (y * newWidth + x) * 3
                    d[i] = r; d[i + 1] = g; d[i + 2] = b
                }
            }
        }
        return out
    }

    /// Every channel multiplied by `factor` (exposure).
    public mutating func scale(by factor: Float) {
        rgb.withUnsafeMutableBufferPointer { p in
            for i in 0..<p.count { p[i] *= factor }
        }
    }

    /// A backlit exposure: gain `centre` at the frame's centre rising to `edge` at its corners,
    /// so the subject darkens while the bright surround clips.
    public mutating func backlight(centre: Float, edge: Float) {
        let cx = Float(width) / 2, cy = Float(height) / 2, reach = (cx * cx + cy * cy).squareRoot()
        let w = width
        rgb.withUnsafeMutableBufferPointer { p in
            for y in 0..<height {
                for x in 0..<w {
                    let dx = Float(x) - cx, dy = Float(y) - cy
                    let r = (dx * dx + dy * dy).squareRoot() / reach
                    let gain = centre + (edge - centre) * r * r
                    let i = (y * w + x) * 3
                    p[i] *= gain; p[i + 1] *= gain; p[i + 2] *= gain
                }
            }
        }
    }

    /// A horizontal box blur over (2 radius + 1) pixels: the smear of a slow shutter.
    public mutating func blurHorizontally(radius: Int) {
        guard radius > 0 else { return }
        rgb = Self.blurPass(rgb, width: width, height: height, radius: radius, horizontal: true)
    }

    /// Quantised to an `Image`.
    public func image() -> Image {
        let bytes = rgb.map { UInt8(min(max($0.rounded(), 0), 255)) }
        // The buffer holds exactly width * height * 3 values.
        return try! Image(rgb: bytes, width: width, height: height)
    }

    /// Adds camera sensor noise of deviation `sigma` to every channel.
    public mutating func addNoise(sigma: Double, using random: inout SynthRandom) {
        let s = Float(sigma)
        rgb.withUnsafeMutableBufferPointer { p in
            for i in 0..<p.count { p[i] += Float(random.gaussian(1)) * s }
        }
    }

    /// A separable box blur over (2 radius + 1) pixels, edges clamped.
    public mutating func boxBlur(radius: Int) {
        guard radius > 0 else { return }
        rgb = Self.blurPass(rgb, width: width, height: height, radius: radius, horizontal: true)
        rgb = Self.blurPass(rgb, width: width, height: height, radius: radius, horizontal: false)
    }

    private static func blurPass(_ src: [Float], width w: Int, height h: Int, radius: Int, horizontal: Bool) -> [Float] {
        var out = src
        src.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { d in
                for y in 0..<h {
                    for x in 0..<w {
                        for c in 0..<3 {
                            var sum: Float = 0
                            for k in -radius...radius {
                                let sx = horizontal ? min(max(x + k, 0), w - 1) : x
                                let sy = horizontal ? y : min(max(y + k, 0), h - 1)
                                sum += s[(sy * w + sx) * 3 + c]
                            }
                            d[(y * w + x) * 3 + c] = sum / Float(2 * radius + 1)
                        }
                    }
                }
            }
        }
        return out
    }

    /// Fills the polygon `points` (convex or star-shaped about its centroid) with `color`,
    /// blended by `alpha`.
    public mutating func fill(polygon points: [Point2D], color: (Float, Float, Float), alpha: Float) {
        guard points.count >= 3, alpha > 0 else { return }
        let n = Double(points.count)
        let centre = Point2D(x: points.reduce(0) { $0 + $1.x } / n, y: points.reduce(0) { $0 + $1.y } / n)
        for i in 0..<points.count {
            let a = points[i], b = points[(i + 1) % points.count]
            fillTriangle(centre, a, b) { _, _ in color } blend: { alpha }
        }
    }

    /// Blends pixels of `source` taken `shiftY` rows away into an ellipse, feathered to its edge.
    public mutating func clone(from source: PixelBuffer, centre: Point2D, radii: (Double, Double), shiftY: Double, alpha: Float) {
        let minX = max(0, Int(centre.x - radii.0)), maxX = min(width - 1, Int(centre.x + radii.0) + 1)
        let minY = max(0, Int(centre.y - radii.1)), maxY = min(height - 1, Int(centre.y + radii.1) + 1)
        guard minX <= maxX, minY <= maxY else { return }
        for y in minY...maxY {
            for x in minX...maxX {
                let dx = (Double(x) - centre.x) / radii.0, dy = (Double(y) - centre.y) / radii.1
                let r = (dx * dx + dy * dy).squareRoot()
                guard r < 1 else { continue }
                let a = alpha * Float(min(1, (1 - r) / 0.25))
                let v = source.sample(Double(x), Double(y) + shiftY)
                let i = (y * width + x) * 3
                rgb[i] += (v.0 - rgb[i]) * a
                rgb[i + 1] += (v.1 - rgb[i + 1]) * a
                rgb[i + 2] += (v.2 - rgb[i + 2]) * a
            }
        }
    }

    /// Draws a polyline as a band `width` pixels thick.
    public mutating func stroke(_ points: [Point2D], width: Double, color: (Float, Float, Float), alpha: Float) {
        for (a, b) in zip(points, points.dropFirst()) {
            let dx = b.x - a.x, dy = b.y - a.y
            let length = max((dx * dx + dy * dy).squareRoot(), 1e-6)
            let nx = -dy / length * width / 2, ny = dx / length * width / 2
            let quad = [Point2D(x: a.x + nx, y: a.y + ny), Point2D(x: b.x + nx, y: b.y + ny),
                        Point2D(x: b.x - nx, y: b.y - ny), Point2D(x: a.x - nx, y: a.y - ny)]
            fill(polygon: quad, color: color, alpha: alpha)
        }
    }

    /// Rasterises the triangle a-b-c (either orientation), writing `shade(x, y)` at each covered
    /// pixel centre, blended by `blend()`.
    @inline(__always)
    mutating func fillTriangle(_ a: Point2D, _ b: Point2D, _ c: Point2D,
                               shade: (Double, Double) -> (Float, Float, Float), blend: () -> Float = { 1 }) {
        let area = Delaunay.cross(a, b, c)
        guard abs(area) > 1e-9 else { return }
        let minX = max(0, Int((min(a.x, b.x, c.x)).rounded(.down))), maxX = min(width - 1, Int((max(a.x, b.x, c.x)).rounded(.up)))
        let minY = max(0, Int((min(a.y, b.y, c.y)).rounded(.down))), maxY = min(height - 1, Int((max(a.y, b.y, c.y)).rounded(.up)))
        guard minX <= maxX, minY <= maxY else { return }
        let alpha = blend()
        let w = width
        rgb.withUnsafeMutableBufferPointer { p in
            for y in minY...maxY {
                let py = Double(y)
                for x in minX...maxX {
                    let px = Double(x)
                    let p0 = Point2D(x: px, y: py)
                    let l0 = Delaunay.cross(b, c, p0) / area, l1 = Delaunay.cross(c, a, p0) / area
                    let l2 = 1 - l0 - l1
                    guard l0 >= -1e-7, l1 >= -1e-7, l2 >= -1e-7 else { continue }
                    let v = shade(l0, l1)
                    let i = (y * w + x) * 3
                    if alpha >= 1 {
                        p[i] = v.0; p[i + 1] = v.1; p[i + 2] = v.2
                    } else {
                        p[i] += (v.0 - p[i]) * alpha
                        p[i + 1] += (v.1 - p[i + 1]) * alpha
                        p[i + 2] += (v.2 - p[i + 2]) * alpha
                    }
                }
            }
        }
    }
}
