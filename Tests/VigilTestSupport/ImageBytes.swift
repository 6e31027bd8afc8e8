/// Pieces of JPEG and PNG streams built byte by byte, for tests that need what an encoder does
/// not write: an Exif orientation tag, a PNG chunk of a given type.
public enum ImageBytes {
    /// A PNG chunk: length, type, data and its CRC-32.
    public static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        var crc: UInt32 = 0xFFFF_FFFF
        let body = Array(type.utf8) + data
        for byte in body {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return bigEndian32(UInt32(data.count)) + body + bigEndian32(~crc)
    }

    /// `value` as four bytes, most significant first (PNG's order).
    public static func bigEndian32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// A TIFF block with one directory entry: Orientation (tag 274) = `value`.
    public static func exifTIFF(orientation value: Int, littleEndian: Bool) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { littleEndian ? u16(v & 0xFFFF) + u16(v >> 16) : u16(v >> 16) + u16(v & 0xFFFF) }
        return (littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]) + u16(42) + u32(8)
            + u16(1) + u16(0x0112) + u16(3) + u32(1) + u16(value) + u16(0) + u32(0)
    }

    /// `jpeg` with an APP1 Exif segment holding `tiff` right after its start-of-image marker.
    public static func jpeg(_ jpeg: [UInt8], exif tiff: [UInt8]) -> [UInt8] {
        let payload = Array("Exif\0\0".utf8) + tiff
        let length = payload.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + jpeg.dropFirst(2)
    }

    /// `png` with an `eXIf` chunk holding `tiff` right after its header chunk.
    public static func png(_ png: [UInt8], exif tiff: [UInt8]) -> [UInt8] {
        let afterHeader = 8 + 25   // signature, then IHDR: length, type, 13 bytes, CRC
        return Array(png.prefix(afterHeader)) + pngChunk("eXIf", tiff) + png.dropFirst(afterHeader)
    }
}
