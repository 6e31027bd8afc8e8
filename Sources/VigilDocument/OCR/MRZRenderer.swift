/// Draws machine-readable zones in OCR-B at a fixed pitch, black on white, as printers do:
/// the test documents' zones, and the reader's templates.
public struct MRZRenderer: Sendable {
    public let font: OCRBFont
    /// Pixels from one character to the next (OCR-B is monospaced; its own advance by default).
    public let pitch: Int
    /// Pixels from one line's baseline to the next.
    public let lineSpacing: Int

    /// A renderer with `font`'s advance as the pitch and lines 1.5 em apart.
    public init(font: OCRBFont) {
        self.font = font
        pitch = font.glyph("0")?.advance ?? font.pixelHeight * 6 / 10
        lineSpacing = font.pixelHeight * 3 / 2
    }

    /// `lines` on a white image with `margin` pixels around them.
    public func render(_ lines: [String], margin: Int) -> PageImage {
        let columns = lines.map(\.count).max() ?? 0
        var image = PageImage(width: 2 * margin + columns * pitch, height: 2 * margin + lines.count * lineSpacing)
        for (row, line) in lines.enumerated() {
            let baseline = margin + row * lineSpacing + font.pixelHeight
            for (column, character) in line.enumerated() {
                guard let glyph = font.glyph(character) else { continue }
                draw(glyph, x: margin + column * pitch + glyph.left, y: baseline - glyph.top, on: &image)
            }
        }
        return image
    }

    private func draw(_ glyph: OCRBFont.Glyph, x: Int, y: Int, on image: inout PageImage) {
        for gy in 0..<glyph.height {
            for gx in 0..<glyph.width {
                let px = x + gx, py = y + gy
                guard px >= 0, py >= 0, px < image.width, py < image.height else { continue }
                let ink = Int(glyph.coverage[gy * glyph.width + gx])
                image[px, py] = UInt8(min(Int(image[px, py]), 255 - ink))
            }
        }
    }
}
