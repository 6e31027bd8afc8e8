import VigilCore

/// Measures brightness, contrast and sharpness of a face region on a normalised-size crop.
enum FaceQualityMeter {
    static let sampleWidth = 128.0

    static func measure(_ image: Image, box: Rect) -> FaceQuality {
        let scale = min(1, sampleWidth / max(box.width, 1))
        let gray = image.grayscale(region: box, scale: scale)
        let w = gray.width, h = gray.height
        var sum = 0.0, sumSquares = 0.0
        var lapSum = 0.0, lapSquares = 0.0, lapCount = 0.0
        gray.pixels.withUnsafeBufferPointer { p in
            for v in p {
                let d = Double(v)
                sum += d
                sumSquares += d * d
            }
            guard w >= 3, h >= 3 else { return }
            for y in 1..<(h - 1) {
                for x in 1..<(w - 1) {
                    let i = y * w + x
                    let lap = Double(Int(p[i - 1]) + Int(p[i + 1]) + Int(p[i - w]) + Int(p[i + w]) - 4 * Int(p[i]))
                    lapSum += lap
                    lapSquares += lap * lap
                    lapCount += 1
                }
            }
        }
        let n = Double(w * h)
        let mean = sum / n
        let variance = max(0, sumSquares / n - mean * mean)
        let lapMean = lapCount > 0 ? lapSum / lapCount : 0
        let sharpness = lapCount > 0 ? max(0, lapSquares / lapCount - lapMean * lapMean) : 0
        return FaceQuality(sharpness: sharpness, brightness: mean / 255, contrast: variance.squareRoot() / 255)
    }

    /// Mean colour of the central half of the face box, sampled every other pixel.
    static func color(_ image: Image, box: Rect) -> FaceColor {
        guard let region = box.scaled(by: 0.5).intersection(image.bounds) else { return FaceColor(red: 0, green: 0, blue: 0) }
        let x0 = Int(region.x), y0 = Int(region.y)
        let x1 = min(image.width, Int(region.x + region.width)), y1 = min(image.height, Int(region.y + region.height))
        var r = 0, g = 0, b = 0, n = 0
        image.rgb.withUnsafeBufferPointer { p in
            for y in stride(from: y0, to: y1, by: 2) {
                for x in stride(from: x0, to: x1, by: 2) {
                    let i = (y * image.width + x) * 3
                    r += Int(p[i]); g += Int(p[i + 1]); b += Int(p[i + 2]); n += 1
                }
            }
        }
        guard n > 0 else { return FaceColor(red: 0, green: 0, blue: 0) }
        let scale = 1 / (255 * Double(n))
        return FaceColor(red: Double(r) * scale, green: Double(g) * scale, blue: Double(b) * scale)
    }
}
