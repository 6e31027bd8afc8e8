import VigilCore
import VigilDocument
import VigilFace

/// The document reader as `vigil document` and `POST /v1/documents/read` run it, on photos of
/// extreme shapes: PNG headers that announce strips and giants (refused from the header, before
/// any pixel is decoded), and real images of every shape the limits allow (a strip 1:8, a side of
/// 8192, 8 MP of noise or of ruled lines), decoded and read.
struct DocumentTarget: FuzzTarget {
    let name = "document"
    /// A read is bounded by the working size (about 0.3 s of a core for 8 MP in a release build);
    /// five times that leaves room for a debug build on a loaded machine.
    let hangMs = 5000.0
    let png: [UInt8]
    let reader: DocumentReader
    /// JPEGs at the limits, drawn once (drawing 8 MP costs more than reading it).
    let drawn: [[UInt8]]

    init(png: [UInt8]) throws {
        self.png = png
        reader = try DocumentReader()
        // The longest sides, the most elongated shapes and the largest area the limits allow.
        let shapes = [(Image.maxSide, Image.maxSide / Image.maxAspectRatio), (Image.maxSide / Image.maxAspectRatio, Image.maxSide),
                      (2898, 2898), (1199, 7000), (7000, 1199), (3264, 2448), (4096, 512), (512, 4096)]
        drawn = try shapes.enumerated().map { index, shape in try Self.draw(width: shape.0, height: shape.1, pattern: index % 3) }
    }

    func run(index: Int, seed: UInt64) -> FuzzOutcome {
        var mutator = Mutator(seed: seed, index: index)
        let input: [UInt8]
        switch index % 4 {
        case 0, 2: input = announced(&mutator)
        case 1: input = mutator.pick(drawn)
        default: input = mutator.jpeg(mutator.pick(drawn))
        }
        guard let image = try? Image(encoded: input, maxPixels: DocumentReader.maxPixels) else { return .handled }
        let reading = reader.read(PageImage(rgb: image.rgb, width: image.width, height: image.height), today: MRZDate(year: 2026, month: 12, day: 6))
        if case .read = reading { return .accepted }
        return .handled
    }

    /// The seed PNG with its header announcing an extreme size (its data left as it is).
    private func announced(_ mutator: inout Mutator) -> [UInt8] {
        var bytes = png
        let long = mutator.pick([8193, 20_000, 240_000, 1_000_000, 0x7FFF_FFFF]), short = mutator.pick([1, 35, 70, 1024])
        let (width, height) = mutator.int(0...1) == 0 ? (long, short) : (short, long)
        // IHDR's width and height follow the signature (8), the chunk's length (4) and type (4).
        for (offset, value) in [(16, width), (20, height)] {
            for k in 0..<4 { bytes[offset + k] = UInt8(truncatingIfNeeded: value >> (24 - 8 * k)) }
        }
        return bytes
    }

    /// A JPEG of `width` x `height` of noise (0), rows of marks like lines of text (1) or a
    /// gradient (2). The noise repeats one random row, shifted a pixel a row: as hard to read,
    /// and quick to draw.
    static func draw(width: Int, height: Int, pattern: Int) throws -> [UInt8] {
        var random = SplitMix64(state: UInt64(width * 31 + height))
        let noise = (0..<(width + height)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        var page = PageImage(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                switch pattern {
                case 0: page.pixels[y * width + x] = noise[x + y]
                case 1: page.pixels[y * width + x] = (y / 12) % 3 == 0 && (x / 9) % 2 == 0 ? 20 : 235
                default: page.pixels[y * width + x] = UInt8((x * 7 + y * 3) % 256)
                }
            }
        }
        return try page.image().jpegData(quality: 80)
    }
}
