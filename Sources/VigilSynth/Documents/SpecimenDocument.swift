import Foundation
import VigilDocument
import VigilFace

/// A specimen-style identity document's data page drawn in grey: a guilloche-like background,
/// the portrait, printed fields in OCR-B and the machine-readable zone along the bottom, at the
/// proportions of ICAO 9303 (the zone about 90% of the page's width).
public struct SpecimenDocument: Sendable {
    public let format: MRZFormat
    public let fields: MRZComposer.Fields
    /// The zone as printed.
    public var zone: [String] { MRZComposer.lines(format, fields) }

    public init(format: MRZFormat, fields: MRZComposer.Fields) {
        self.format = format
        self.fields = fields
    }

    /// The rows of the page `width` pixels wide that the zone is printed on.
    public func zoneRows(width: Int) throws -> Range<Int> {
        let height = Int(Double(width) * aspect), zone = try zoneImage(width: width).height
        return (height - zone - height / 20)..<(height - height / 20)
    }

    /// Height over width: ID-1 cards (TD1) and passport pages.
    var aspect: Double { format == .td1 ? 0.63 : 0.70 }

    /// The zone drawn with its characters sized so that its lines span about 90% of `width`.
    func zoneImage(width: Int) throws -> PageImage {
        let advance = Double(try OCRBFont(pixelHeight: 100).glyph("0")?.advance ?? 60) / 100   // per pixel of size
        let zoneFont = try OCRBFont(pixelHeight: max(8, Int(Double(width) * 0.9 / Double(format.lineLength) / advance)))
        return MRZRenderer(font: zoneFont).render(zone, margin: 0)
    }

    /// The portrait box on the left, the printed fields to its right, above the zone.
    func portraitBox(width: Int, zoneTop: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        let height = Int(Double(width) * aspect)
        return (width / 25, height / 8, width * 3 / 10, min(zoneTop - height / 8 - height / 20, width * 4 / 10))
    }

    /// The page in colour, as issued: the paper tinted by a pale green and rose guilloche and
    /// the portrait in colour (`render` is the page in grey, as the reader sees it).
    public func colourRender(width: Int, portrait: Image) throws -> Image {
        let grey = try render(width: width, portrait: portrait)
        var rgb = [UInt8](repeating: 0, count: grey.width * grey.height * 3)
        for y in 0..<grey.height {
            for x in 0..<grey.width {
                // Two tints drift across the paper; ink (dark) stays dark.
                let v = Double(grey[x, y]), paper = v / 230
                let rose = 0.5 + 0.5 * sin(Double(x) * 0.011 + Double(y) * 0.004), green = 1 - rose
                let i = (y * grey.width + x) * 3
                rgb[i] = UInt8(max(0, min(255, v - 26 * green * paper)))
                rgb[i + 1] = UInt8(max(0, min(255, v - 22 * rose * paper)))
                rgb[i + 2] = UInt8(max(0, min(255, v - 14 * paper)))
            }
        }
        let box = portraitBox(width: width, zoneTop: try zoneRows(width: width).lowerBound)
        let photo = portrait.resized(width: box.width, height: box.height)
        for y in 0..<box.height {
            for x in 0..<box.width {
                for c in 0..<3 { rgb[((box.y + y) * grey.width + box.x + x) * 3 + c] = photo.rgb[(y * box.width + x) * 3 + c] }
            }
        }
        return try Image(rgb: rgb, width: grey.width, height: grey.height)
    }

    /// The page `width` pixels wide (height by the format's proportions), with `portrait` in its
    /// photo box.
    public func render(width: Int, portrait: Image) throws -> PageImage {
        let height = Int(Double(width) * aspect)
        var page = PageImage(width: width, height: height, value: 228)
        // A fine wavy pattern, as security printing has, light enough to be paper to the reader.
        for y in 0..<height {
            for x in 0..<width {
                let wave = sin(Double(x) * 0.09 + 6 * sin(Double(y) * 0.013)) * sin(Double(y) * 0.07 + Double(x) * 0.004)
                page[x, y] = UInt8(222 + 10 * wave)
            }
        }
        let zoneImage = try zoneImage(width: width)
        let zoneTop = height - zoneImage.height - height / 20
        page.overprint(zoneImage, x: (width - zoneImage.width) / 2, y: zoneTop)
        let box = portraitBox(width: width, zoneTop: zoneTop)
        let photo = portrait.resized(width: box.width, height: box.height)
        page.paste(PageImage(rgb: photo.rgb, width: box.width, height: box.height), x: box.x, y: box.y)
        let small = try OCRBFont(pixelHeight: max(8, height / 22))
        let printed = [format == .td3 ? "PASSPORT" : "IDENTITY CARD", fields.issuingState, fields.surname, fields.givenNames, fields.nationality,
                       "\(fields.dateOfBirth)", fields.sex ?? "<", "\(fields.expiryDate)", fields.documentNumber]
        let text = MRZRenderer(font: small).render(printed, margin: 0)
        page.overprint(text, x: box.x + box.width + width / 20, y: box.y, belowY: zoneTop - height / 40)
        return page
    }
}
