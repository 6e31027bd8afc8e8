import Testing
import VigilCore
import VigilFace
@testable import VigilDocument
import VigilSynth

/// A document photographed as itself, as a greyscale photocopy and on a screen: the zone is
/// found each time, and the signs tell the copies apart.
@Suite struct DocumentSignsTests {
    /// A colour portrait: a face-coloured oval on a blue background.
    static func portrait() throws -> Image {
        let width = 300, height = 400
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let face = Double((x - 150) * (x - 150)) / 8000 + Double((y - 170) * (y - 170)) / 14000 < 1
                let colour: [UInt8] = face ? [220, 170, 140] : [60, 90, 170 + UInt8(y % 40)]
                for c in 0..<3 { rgb[(y * width + x) * 3 + c] = colour[c] }
            }
        }
        return try Image(rgb: rgb, width: width, height: height)
    }

    @Test(arguments: [(DocumentPresentation.genuine, false, false), (.photocopy, false, true), (.screen, true, false)])
    func aCopyShowsItsSigns(_ presentation: DocumentPresentation, _ screen: Bool, _ photocopy: Bool) throws {
        var random = SynthRandom(seed: 3)
        let today = MRZDate(year: 2026, month: 12, day: 4)
        let document = SpecimenDocument(format: .td3, fields: DocumentEvaluation.person(&random, today: today))
        let page = try document.colourRender(width: 1690, portrait: try Self.portrait())
        let photo = try Image(encoded: try presentation.photo(of: page, random: &random).jpegData(quality: 85), maxPixels: page.width * page.height)
        let reading = DocumentReader(font: try OCRBFont(pixelHeight: DocumentReader.templateSize))
            .read(PageImage(rgb: photo.rgb, width: photo.width, height: photo.height), today: today)
        // The page reads, or (on the screen, blurred by the camera's lens as much as a page out
        // of focus) is refused as blurred; either way its zone is found and measured.
        switch reading {
        case .read(let mrz, _, _, _): #expect(mrz.lines == document.zone)
        case .unreadable(let guidance, _, _): #expect(presentation == .screen && guidance == .blurry, "\(reading)")
        }
        let signs = DocumentSigns.measure(photo, zone: try #require(reading.zone))
        #expect(signs.screen == screen && signs.photocopy == photocopy, "\(signs)")
    }
}
