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
}
