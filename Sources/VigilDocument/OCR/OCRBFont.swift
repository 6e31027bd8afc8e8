import CFreeType
import Foundation

/// The OCR-B typeface of machine-readable zones (ICAO 9303 part 3), rasterised with FreeType
/// from Debian's `fonts-ocr-b`: to render zones (test documents) and to make the reader's
/// glyph templates.
///
/// Owns its `FT_Library` and `FT_Face` from `init` to `deinit`.
// @unchecked: the FreeType handles are only used with `lock` held.
public final class OCRBFont: @unchecked Sendable {
    /// Where Debian puts it.
    public static let debianPath = "/usr/share/fonts/opentype/ocr-b/OCRB.otf"

    /// One character's coverage bitmap (0 none, 255 full) and its placement on the baseline.
    public struct Glyph: Sendable {
        public let width: Int, height: Int
        /// Offset of the bitmap's left edge from the pen, and of its top above the baseline.
        public let left: Int, top: Int
        /// Pen advance to the next character, in pixels.
        public let advance: Int
        public let coverage: [UInt8]
    }

    /// Why the font cannot be used.
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    private let lock = NSLock()
    private var library: FT_Library?
    private var face: FT_Face?
    /// The size it renders at: pixels from the baseline to the top of a capital.
    public let pixelHeight: Int

    /// Opens the font at `path` to render characters `pixelHeight` pixels high (the em size).
    public init(path: String = OCRBFont.debianPath, pixelHeight: Int) throws(Unavailable) {
        self.pixelHeight = pixelHeight
        guard FT_Init_FreeType(&library) == 0, let library else { throw Unavailable(description: "FreeType did not start") }
        guard FT_New_Face(library, path, 0, &face) == 0, let face else {
            FT_Done_FreeType(library)
            throw Unavailable(description: "cannot open the OCR-B font at \(path) (Debian: fonts-ocr-b)")
        }
        FT_Set_Pixel_Sizes(face, 0, FT_UInt(max(4, pixelHeight)))
    }

    deinit {
        if let face { FT_Done_Face(face) }
        if let library { FT_Done_FreeType(library) }
    }

    /// The glyph of `character` (an ASCII character), nil where the font has none.
    public func glyph(_ character: Character) -> Glyph? {
        guard let code = character.asciiValue else { return nil }
        lock.lock()
        defer { lock.unlock() }
        guard let face, vigil_ft_render(face, UInt(code)) == 0, let slot = face.pointee.glyph else { return nil }
        let bitmap = slot.pointee.bitmap
        let width = Int(bitmap.width), height = Int(bitmap.rows), pitch = Int(bitmap.pitch)
        var coverage = [UInt8](repeating: 0, count: width * height)
        if let buffer = bitmap.buffer, width > 0 {
            for y in 0..<height {
                for x in 0..<width { coverage[y * width + x] = buffer[y * abs(pitch) + x] }
            }
        }
        return Glyph(width: width, height: height, left: Int(slot.pointee.bitmap_left), top: Int(slot.pointee.bitmap_top),
                     advance: Int(slot.pointee.advance.x) / 64, coverage: coverage)
    }
}
