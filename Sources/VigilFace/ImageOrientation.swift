/// How an image's stored pixels are to be turned to show it as taken: the Exif orientation tag
/// (TIFF tag 274, values 1 to 8). Phones store a portrait photo sideways and set this tag, and
/// every viewer applies it, so Vigil does too when decoding: what a person saw is what is read.
public enum ImageOrientation: Int, Sendable, CaseIterable {
    /// 1: as stored.
    case up = 1
    /// 2: mirrored left to right.
    case upMirrored
    /// 3: turned half a turn.
    case down
    /// 4: mirrored top to bottom.
    case downMirrored
    /// 5: mirrored along the main diagonal (transposed).
    case leftMirrored
    /// 6: stored turned a quarter counter-clockwise; shown turned a quarter clockwise.
    case right
    /// 7: mirrored along the other diagonal.
    case rightMirrored
    /// 8: stored turned a quarter clockwise; shown turned a quarter counter-clockwise.
    case left

    /// Whether the image is shown with its width and height exchanged.
    public var swapsSides: Bool { rawValue >= 5 }

    /// The stored pixel that shows at (`x`, `y`) of the image as shown, for a stored image of
    /// `width` x `height`.
    func storedPixel(x: Int, y: Int, width: Int, height: Int) -> (x: Int, y: Int) {
        switch self {
        case .up: (x, y)
        case .upMirrored: (width - 1 - x, y)
        case .down: (width - 1 - x, height - 1 - y)
        case .downMirrored: (x, height - 1 - y)
        case .leftMirrored: (y, x)
        case .right: (y, height - 1 - x)
        case .rightMirrored: (width - 1 - y, height - 1 - x)
        case .left: (width - 1 - y, x)
        }
    }

    /// `rgb` (interleaved, `width` x `height` as stored) turned to be shown; the new size.
    func apply(to rgb: [UInt8], width: Int, height: Int) -> (rgb: [UInt8], width: Int, height: Int) {
        guard self != .up else { return (rgb, width, height) }
        let (outW, outH) = swapsSides ? (height, width) : (width, height)
        let out = [UInt8](unsafeUninitializedCapacity: rgb.count) { dst, count in
            rgb.withUnsafeBufferPointer { src in
                for y in 0..<outH {
                    for x in 0..<outW {
                        let s = storedPixel(x: x, y: y, width: width, height: height)
                        let from = (s.y * width + s.x) * 3, to = (y * outW + x) * 3
                        dst[to] = src[from]; dst[to + 1] = src[from + 1]; dst[to + 2] = src[from + 2]
                    }
                }
            }
            count = rgb.count
        }
        return (out, outW, outH)
    }

    /// The orientation an Exif block's first image directory gives, from its TIFF structure (the
    /// bytes after JPEG's "Exif\0\0", or a PNG `eXIf` chunk). Nil when the block holds no valid
    /// tag: a malformed block is ignored, as viewers ignore it, never read out of bounds.
    init?(exifTIFF b: UnsafeRawBufferPointer) {
        guard b.count >= 8 else { return nil }
        let little: Bool
        switch (b[0], b[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func uint16(_ i: Int) -> Int? {
            guard i >= 0, i + 2 <= b.count else { return nil }
            return little ? Int(b[i]) | Int(b[i + 1]) << 8 : Int(b[i]) << 8 | Int(b[i + 1])
        }
        func uint32(_ i: Int) -> Int? {
            guard let a = uint16(i), let c = uint16(i + 2) else { return nil }
            return little ? a | c << 16 : a << 16 | c
        }
        guard uint16(2) == 42, let directory = uint32(4), let entries = uint16(directory) else { return nil }
        for n in 0..<entries {
            let entry = directory + 2 + 12 * n
            guard let tag = uint16(entry) else { return nil }
            guard tag == 0x0112 else { continue }
            // SHORT (3), one value, held in the first two bytes of the value field.
            guard uint16(entry + 2) == 3, uint32(entry + 4) == 1, let value = uint16(entry + 8) else { return nil }
            self.init(rawValue: value)
            return
        }
        return nil
    }
}
