/// The container format and size of an encoded image, read without decoding any pixels.
public struct ImageHeader: Equatable, Sendable {
    /// Supported containers.
    public enum Format: Sendable, Equatable {
        /// JPEG (JFIF/Exif), Huffman-coded baseline, extended or progressive.
        case jpeg
        /// PNG, any colour type.
        case png
    }

    /// The container format.
    public let format: Format
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// How the stored pixels are turned to be shown (Exif; `up` when the image carries none).
    public let orientation: ImageOrientation

    /// The most scans a JPEG may have. Encoders write one (baseline) or about ten (progressive);
    /// each scan costs the decoder a pass over the image, so thousands of empty ones stall it.
    public static let maxScans = 100

    /// Parses and structurally validates the header, so that truncated or inconsistent streams are
    /// refused before the decoder sees them and allocation is bounded by the announced size.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(ImageError) {
        guard !bytes.isEmpty else { throw .empty }
        if bytes.count >= 2, bytes[0] == 0xFF, bytes[1] == 0xD8 {
            (width, height, orientation) = try Self.parseJPEG(bytes)
            format = .jpeg
        } else if bytes.count >= 8, Array(bytes[0..<8]) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] {
            (width, height, orientation) = try Self.parsePNG(bytes)
            format = .png
        } else if bytes.count < 8 && ([0xFF, 0xD8].starts(with: bytes) || [0x89, 0x50, 0x4E, 0x47].starts(with: bytes)) {
            throw .truncated
        } else {
            throw .unsupportedFormat
        }
    }

    private static func uint16(_ b: UnsafeRawBufferPointer, _ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
    private static func uint32(_ b: UnsafeRawBufferPointer, _ i: Int) -> Int {
        Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
    }

    private static func parseJPEG(_ b: UnsafeRawBufferPointer) throws(ImageError) -> (Int, Int, ImageOrientation) {
        var i = 2
        var size: (Int, Int)?
        var orientation: ImageOrientation?
        while true {
            guard i < b.count else { throw .truncated }
            guard b[i] == 0xFF else { throw .malformed("expected a marker at offset \(i)") }
            while i < b.count && b[i] == 0xFF { i += 1 }   // fill bytes
            guard i < b.count else { throw .truncated }
            let marker = b[i]
            i += 1
            if marker == 0xD8 || marker == 0x00 { throw .malformed("unexpected marker \(marker)") }
            if marker == 0xD9 { throw .malformed("image ends before any scan") }
            if (0xD0...0xD7).contains(marker) || marker == 0x01 { continue }
            guard i + 2 <= b.count else { throw .truncated }
            let length = uint16(b, i)
            guard length >= 2 else { throw .malformed("segment length \(length)") }
            guard i + length <= b.count else { throw .truncated }
            switch marker {
            case 0xC0, 0xC1, 0xC2:
                guard length >= 8 else { throw .malformed("short frame header") }
                let height = uint16(b, i + 3), width = uint16(b, i + 5), components = Int(b[i + 7])
                guard width > 0, height > 0 else { throw .unsupportedVariant("zero or deferred dimensions") }
                guard components == 1 || components == 3 else {
                    throw .unsupportedVariant("\(components) colour components")
                }
                guard length >= 8 + 3 * components else { throw .malformed("short frame header") }
                guard size == nil else { throw .malformed("more than one frame header") }
                size = (width, height)
            case 0xE1 where orientation == nil && length >= 8 && Array(b[(i + 2)..<(i + 8)]) == Array("Exif\0\0".utf8):
                orientation = ImageOrientation(exifTIFF: UnsafeRawBufferPointer(rebasing: b[(i + 8)..<(i + length)]))
            case 0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
                throw .unsupportedVariant("lossless, hierarchical or arithmetic-coded JPEG")
            case 0xDA:
                guard let size else { throw .malformed("scan before frame header") }
                // The entropy-coded data must be followed by an end-of-image marker somewhere.
                // Scans are counted on the way: entropy-coded bytes never hold FF DA (an FF in
                // them is followed by 00 or a restart marker), so every FF DA starts a scan.
                var j = i + length
                var scans = 1
                while j + 1 < b.count {
                    if b[j] == 0xFF {
                        if b[j + 1] == 0xD9 { return (size.0, size.1, orientation ?? .up) }
                        if b[j + 1] == 0xDA {
                            scans += 1
                            guard scans <= maxScans else { throw .unsupportedVariant("more than \(maxScans) scans") }
                        }
                    }
                    j += 1
                }
                throw .truncated
            default:
                break
            }
            i += length
        }
    }

    private static func parsePNG(_ b: UnsafeRawBufferPointer) throws(ImageError) -> (Int, Int, ImageOrientation) {
        var i = 8
        var size: (Int, Int)?
        var orientation: ImageOrientation?
        var sawData = false
        while true {
            guard i + 8 <= b.count else { throw .truncated }
            let length = uint32(b, i)
            let type = Array(b[(i + 4)..<(i + 8)])
            guard length <= 0x7FFF_FFFF else { throw .malformed("chunk length \(length)") }
            guard i + 12 + length <= b.count else { throw .truncated }
            let data = i + 8
            for byte in type where !((0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)) {
                throw .malformed("chunk type is not ASCII letters")
            }
            if size == nil {
                guard type == Array("IHDR".utf8), length == 13 else { throw .malformed("first chunk is not IHDR") }
                let width = uint32(b, data), height = uint32(b, data + 4)
                let depth = b[data + 8], colour = b[data + 9]
                guard width > 0, height > 0, width <= 0x7FFF_FFFF, height <= 0x7FFF_FFFF else {
                    throw .malformed("dimensions \(width)x\(height)")
                }
                let valid: [UInt8: [UInt8]] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
                guard valid[colour]?.contains(depth) == true else { throw .malformed("colour type \(colour) depth \(depth)") }
                guard b[data + 10] == 0, b[data + 11] == 0, b[data + 12] <= 1 else { throw .malformed("IHDR methods") }
                size = (width, height)
            } else if type == Array("eXIf".utf8), orientation == nil {
                orientation = ImageOrientation(exifTIFF: UnsafeRawBufferPointer(rebasing: b[data..<(data + length)]))
            } else if type == Array("IDAT".utf8) {
                sawData = true
            } else if type == Array("IEND".utf8) {
                guard sawData, let size else { throw .malformed("no image data") }
                return (size.0, size.1, orientation ?? .up)
            }
            i += 12 + length
        }
    }
}
