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
