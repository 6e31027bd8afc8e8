import Testing
@testable import VigilDocument

/// A passport data page drawn upright: a portrait, printed fields, and the zone at the bottom.
@Suite struct MRZLocatorTests {
    static func page(_ zone: [String], width: Int = 1400, height: Int = 980) throws -> PageImage {
        var page = PageImage(width: width, height: height, value: 235)
        // The portrait: a grey rectangle with a dark head and shoulders.
        for y in 120..<560 {
            for x in 60..<400 {
                let head = Double((x - 230) * (x - 230)) / 9000 + Double((y - 280) * (y - 280)) / 16000 < 1
                let shoulders = y > 430 && abs(x - 230) < 150
                page[x, y] = head || shoulders ? 60 : 170
            }
        }
        let small = try OCRBFont(pixelHeight: 24)
        let fields = MRZRenderer(font: small).render(["PASSPORT  UTO  L898902C3", "ERIKSSON", "ANNA MARIA", "UTOPIAN", "12 AUG 1974  F",
                                                      "15 APR 2012"], margin: 0)
        page.overprint(fields, x: 460, y: 140)
        let zoneImage = MRZRenderer(font: try OCRBFont(pixelHeight: 36)).render(zone, margin: 0)
        page.overprint(zoneImage, x: (width - zoneImage.width) / 2, y: height - zoneImage.height - 60)
        return page
    }

    @Test func theZoneOfADataPageIsFoundAndReadBelowItsPortraitAndFields() throws {
        let zone = try #require(MRZLocator.zone(in: try Self.page(MRZTests.td3)))
        let lines = try MRZTextReaderTests.reader.read(zone).map(\.text)
        #expect(lines == MRZTests.td3)
    }

    @Test func aPageWithoutAZoneHasNone() throws {
        var page = try Self.page(MRZTests.td3)
        for y in 820..<page.height { for x in 0..<page.width { page[x, y] = 235 } }
        #expect(MRZLocator.zone(in: page) == nil)
    }
}
