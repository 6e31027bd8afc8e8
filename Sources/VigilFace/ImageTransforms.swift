import VigilCore

extension Image {
    /// The part of the image inside `rect` (clipped to the image); nil when they do not overlap.
    public func cropped(to rect: Rect) -> Image? {
        guard let area = rect.intersection(bounds) else { return nil }
        let x0 = Int(area.x), y0 = Int(area.y)
        let w = min(width - x0, Int(area.width)), h = min(height - y0, Int(area.height))
        guard w > 0, h > 0 else { return nil }
        var out = [UInt8](repeating: 0, count: w * h * 3)
        rgb.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    let s = ((y0 + y) * width + x0) * 3
                    dst.baseAddress!.advanced(by: y * w * 3).update(from: src.baseAddress!.advanced(by: s), count: w * 3)
                }
            }
        }
        return try? Image(rgb: out, width: w, height: h)
    }

    /// Bilinear resampling to `newWidth` x `newHeight` (both > 0).
    public func resized(width newWidth: Int, height newHeight: Int) -> Image {
        precondition(newWidth > 0 && newHeight > 0, "target size must be positive")
        let sx = Double(width) / Double(newWidth), sy = Double(height) / Double(newHeight)
        return remapped(width: newWidth, height: newHeight) { x, y in
            Point2D(x: (Double(x) + 0.5) * sx - 0.5, y: (Double(y) + 0.5) * sy - 0.5)
        }
    }

    /// An image whose pixel (x, y) is this image sampled bilinearly at `source(x, y)`; black outside.
    public func remapped(width newWidth: Int, height newHeight: Int, source: (Int, Int) -> Point2D) -> Image {
        var out = [UInt8](repeating: 0, count: newWidth * newHeight * 3)
        rgb.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<newHeight {
                    for x in 0..<newWidth {
                        let p = source(x, y)
                        let fx = min(max(p.x, 0), Double(width - 1)), fy = min(max(p.y, 0), Double(height - 1))
                        guard p.x > -1, p.y > -1, p.x < Double(width), p.y < Double(height) else { continue }
                        let x0 = Int(fx), y0 = Int(fy)
                        let x1 = min(x0 + 1, width - 1), y1 = min(y0 + 1, height - 1)
                        let ax = fx - Double(x0), ay = fy - Double(y0)
                        let d = (y * newWidth + x) * 3
                        for c in 0..<3 {
                            let top = Double(src[(y0 * width + x0) * 3 + c]) * (1 - ax) + Double(src[(y0 * width + x1) * 3 + c]) * ax
                            let bottom = Double(src[(y1 * width + x0) * 3 + c]) * (1 - ax) + Double(src[(y1 * width + x1) * 3 + c]) * ax
                            dst[d + c] = UInt8((top * (1 - ay) + bottom * ay).rounded())
                        }
                    }
                }
            }
        }
        // Dimensions are positive and the buffer is sized for them.
        return try! Image(rgb: out, width: newWidth, height: newHeight)
    }
}
