import CDlibFace
import Foundation
import VigilCore

/// A decoded 8-bit RGB image (interleaved, row-major, no padding).
public struct Image: Sendable {
    /// Default upper bound on decoded pixels (4 MP).
    public static let defaultMaxPixels = 4_000_000
    /// The longest side any image may have, whatever its area: no camera or scanner of a page
    /// makes more, and each stage after decoding allocates by side as well as by area.
    public static let maxSide = 8192
    /// How many times longer than wide (or wider than long) an image may be: a phone's panorama
    /// is about 4, a 9:16 portrait 1.8. A strip of 240000x35 pixels has a small area and made the
    /// document reader allocate 2 GB.
    public static let maxAspectRatio = 8

    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `width * height * 3` bytes, R, G, B per pixel.
    public let rgb: [UInt8]

    /// Decodes JPEG or PNG bytes, turned as their Exif orientation says (`ImageOrientation`), so
    /// that width, height and every coordinate read from it refer to the image as shown. The
    /// header is checked first: nothing over `maxPixels`, longer than `maxSide` or more elongated
    /// than `maxAspectRatio` is decoded.
    public init(encoded bytes: some ContiguousBytes, maxPixels: Int = Image.defaultMaxPixels) throws(ImageError) {
        let result: Result<(Int, Int, [UInt8]), ImageError> = bytes.withUnsafeBytes { raw in
            do throws(ImageError) {
                let header = try ImageHeader(parsing: raw)
                let (width, height) = (header.width, header.height)
                guard width.multipliedReportingOverflow(by: height).partialValue <= maxPixels,
                      width <= maxPixels, height <= maxPixels else {
                    return .failure(.tooLarge(width: width, height: height, maxPixels: maxPixels))
                }
                guard max(width, height) <= Self.maxSide, max(width, height) <= min(width, height) * Self.maxAspectRatio else {
                    return .failure(.extremeShape(width: width, height: height))
                }
                var message = [CChar](repeating: 0, count: 256)
                var status = Int32(VF_OK)
                let pixels = [UInt8](unsafeUninitializedCapacity: width * height * 3) { out, count in
                    status = vf_decode(raw.baseAddress!.assumingMemoryBound(to: UInt8.self), raw.count,
                                       header.format == .jpeg ? Int32(VF_FORMAT_JPEG) : Int32(VF_FORMAT_PNG),
                                       out.baseAddress!, width, height, &message, message.count)
                    count = status == VF_OK ? width * height * 3 : 0
                }
                guard status != VF_ERROR_SIZE else {
                    return .failure(.malformed("the decoded size differs from the header"))
                }
                guard status == VF_OK else {
                    let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    return .failure(.malformed(text.isEmpty ? "the decoder refused the data" : text))
                }
                let shown = header.orientation.apply(to: pixels, width: width, height: height)
                return .success((shown.width, shown.height, shown.rgb))
            } catch {
                return .failure(error)
            }
        }
        (width, height, rgb) = try result.get()
    }

    /// Wraps an interleaved RGB buffer.
    public init(rgb: [UInt8], width: Int, height: Int) throws(ImageError) {
        guard width > 0, height > 0 else { throw .invalidBuffer("dimensions \(width)x\(height)") }
        guard rgb.count == width * height * 3 else {
            throw .invalidBuffer("expected \(width * height * 3) bytes, got \(rgb.count)")
        }
        self.width = width
        self.height = height
        self.rgb = rgb
    }

    /// Converts a BGRA buffer (as camera APIs deliver it); `bytesPerRow` may include padding.
    public init(bgra: [UInt8], width: Int, height: Int, bytesPerRow: Int? = nil) throws(ImageError) {
        let stride = bytesPerRow ?? width * 4
        guard width > 0, height > 0, stride >= width * 4 else {
            throw .invalidBuffer("dimensions \(width)x\(height), row stride \(stride)")
        }
        guard bgra.count >= stride * (height - 1) + width * 4 else {
            throw .invalidBuffer("buffer of \(bgra.count) bytes is too small for \(width)x\(height)")
        }
        var out = [UInt8](repeating: 0, count: width * height * 3)
        bgra.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<height {
                    for x in 0..<width {
                        let s = y * stride + x * 4, d = (y * width + x) * 3
                        dst[d] = src[s + 2]; dst[d + 1] = src[s + 1]; dst[d + 2] = src[s]
                    }
                }
            }
        }
        self.width = width
        self.height = height
        self.rgb = out
    }

    /// The whole image as a rectangle.
    public var bounds: Rect { Rect(x: 0, y: 0, width: Double(width), height: Double(height)) }

    /// Reads and decodes a file.
    public init(contentsOf url: URL, maxPixels: Int = Image.defaultMaxPixels) throws {
        try self.init(encoded: try Data(contentsOf: url), maxPixels: maxPixels)
    }

    /// JPEG encoding at `quality` (1-100).
    public func jpegData(quality: Int = 90) -> [UInt8] {
        encoded { vf_encode_jpeg($0, width, height, Int32(min(max(quality, 1), 100)), $1, $2) }
    }

    /// Lossless PNG encoding.
    public func pngData() -> [UInt8] {
        encoded { vf_encode_png($0, width, height, $1, $2) }
    }

    private func encoded(_ encode: (UnsafePointer<UInt8>, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
                                    UnsafeMutablePointer<Int>) -> Int32) -> [UInt8] {
        var buffer: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = rgb.withUnsafeBufferPointer { encode($0.baseAddress!, &buffer, &length) }
        defer { vf_free(buffer) }
        // Encoding a valid in-memory RGB buffer fails only when memory runs out.
        precondition(status == VF_OK && buffer != nil, "image encoder failed (out of memory)")
        return Array(UnsafeBufferPointer(start: buffer, count: length))
    }

    /// Luminance of `region` (clipped to the image), resampled by box averaging to `scale`.
    public func grayscale(region: Rect? = nil, scale: Double = 1) -> GrayImage {
        let area = region.flatMap { $0.intersection(bounds) } ?? bounds
        let x0 = Int(area.x), y0 = Int(area.y)
        let srcW = max(1, min(width - x0, Int(area.width))), srcH = max(1, min(height - y0, Int(area.height)))
        let s = min(max(scale, 0.01), 1)
        let outW = max(1, Int(Double(srcW) * s)), outH = max(1, Int(Double(srcH) * s))
        var out = [UInt8](repeating: 0, count: outW * outH)
        rgb.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for oy in 0..<outH {
                    let sy0 = y0 + oy * srcH / outH, sy1 = max(sy0 + 1, y0 + (oy + 1) * srcH / outH)
                    for ox in 0..<outW {
                        let sx0 = x0 + ox * srcW / outW, sx1 = max(sx0 + 1, x0 + (ox + 1) * srcW / outW)
                        var sum = 0
                        for sy in sy0..<sy1 {
                            var p = (sy * width + sx0) * 3
                            for _ in sx0..<sx1 {
                                sum += 77 * Int(src[p]) + 150 * Int(src[p + 1]) + 29 * Int(src[p + 2])
                                p += 3
                            }
                        }
                        dst[oy * outW + ox] = UInt8(sum / ((sy1 - sy0) * (sx1 - sx0) * 256))
                    }
                }
            }
        }
        return GrayImage(width: outW, height: outH, pixels: out, origin: Point2D(x: Double(x0), y: Double(y0)),
                         scale: Double(outW) / Double(srcW))
    }
}

/// An 8-bit luminance image, possibly a resampled crop of a larger `Image`.
public struct GrayImage: Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `width * height` bytes.
    public let pixels: [UInt8]
    /// Where this crop starts in the source image.
    public let origin: Point2D
    /// Output pixels per source pixel.
    public let scale: Double

    /// Maps a rectangle in this image back to source image coordinates.
    public func toSource(_ rect: Rect) -> Rect {
        Rect(x: origin.x + rect.x / scale, y: origin.y + rect.y / scale, width: rect.width / scale, height: rect.height / scale)
    }
}
