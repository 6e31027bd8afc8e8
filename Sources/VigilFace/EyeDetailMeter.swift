import VigilCore

/// How much detail each eye shows: the grey-level spread in a band along the eye, over the
/// spread of the whole face. An open eye shows white and iris, a shut one eyelid skin, so the
/// spread falls by a third or more when the eye shuts, where on some faces the eye landmarks
/// barely close. Over the face's own spread, so that light on the whole face cancels out.
enum EyeDetailMeter {
    static func measure(_ image: Image, landmarks: [Point2D], faceContrast: Double) -> EyeDetail? {
        guard faceContrast > 0, let left = spread(image, landmarks[42...47]), let right = spread(image, landmarks[36...41]) else { return nil }
        let face = faceContrast * 255
        return EyeDetail(left: left / face, right: right / face)
    }

    /// Grey-level standard deviation in the eye's band: its middle 70% across, half its width high.
    private static func spread(_ image: Image, _ eye: ArraySlice<Point2D>) -> Double? {
        guard let bounds = Rect.bounding(Array(eye)), bounds.width >= 6 else { return nil }
        let centreY = bounds.y + bounds.height / 2
        let band = Rect(x: bounds.x + 0.15 * bounds.width, y: centreY - 0.25 * bounds.width, width: 0.7 * bounds.width, height: 0.5 * bounds.width)
        guard band.x >= 0, band.y >= 0, band.x + band.width <= Double(image.width), band.y + band.height <= Double(image.height) else { return nil }
        let gray = image.grayscale(region: band)
        var sum = 0.0, squares = 0.0
        for v in gray.pixels {
            let d = Double(v)
            sum += d
            squares += d * d
        }
        let n = Double(gray.pixels.count)
        return max(0, squares / n - (sum / n) * (sum / n)).squareRoot()
    }
}
