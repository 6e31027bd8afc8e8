import Testing
import VigilCore
@testable import VigilDocument

/// Lines found from their characters: a zone among other print, and fillers told by their shape.
@Suite struct CharacterLinesTests {
    /// A zone a third of the photo wide, beside a column of large print and under a frame drawn
    /// round it, is found where it lies, and nothing else is taken for a zone.
    @Test func aZoneAmongOtherPrintIsFoundWhereItLies() throws {
        let zone = MRZRenderer(font: try OCRBFont(pixelHeight: 20)).render(MRZTests.td3, margin: 0)
        var photo = PageImage(width: zone.width * 3, height: zone.height * 8, value: 235)
        let x = zone.width, y = zone.height * 5
        photo.overprint(zone, x: x, y: y)
        // A frame round the zone, two pixels from its print.
        for px in (x - 4)...(x + zone.width + 4) { photo[px, y - 4] = 0; photo[px, y + zone.height + 4] = 0 }
        for py in (y - 4)...(y + zone.height + 4) { photo[x - 4, py] = 0; photo[x + zone.width + 4, py] = 0 }
        // Large print to the left, in the zone's rows, and a paragraph above.
        photo.overprint(MRZRenderer(font: try OCRBFont(pixelHeight: 60)).render(["ZONE"], margin: 0), x: 20, y: y - 10)
        photo.overprint(MRZRenderer(font: try OCRBFont(pixelHeight: 20)).render(["THE HOLDER OF THIS PASSPORT", "IS A CITIZEN OF UTOPIA"], margin: 0),
                        x: x, y: zone.height * 2)
        let zones = CharacterLines.zones(CharacterLines.lines(in: photo))
        #expect(zones.count == 1)
        let frame = try #require(zones.first).frame
        #expect(frame.x > Double(x) - 60 && frame.x < Double(x) && frame.x + frame.width > Double(x + zone.width) && frame.x + frame.width < Double(x + zone.width) + 60,
                "\(frame)")
        // Every row of the zone's ink, and no more than a line's height beyond.
        let inked = (0..<zone.height).filter { row in (0..<zone.width).contains { zone[$0, row] < 128 } }
        let top = Double(y + inked.first!), bottom = Double(y + inked.last! + 1)
        #expect(frame.y <= top && frame.y > top - 20 && frame.y + frame.height >= bottom && frame.y + frame.height < bottom + 20, "\(frame) \(top) \(bottom)")
    }

    /// OCR-B's chevron is a filler; no letter or digit is, however it is drawn.
    @Test func onlyTheChevronIsShapedAsAFiller() throws {
        let font = try OCRBFont(pixelHeight: 40)
        var fillers: [Character] = []
        for character in MRZTextReader.characters {
            let cell = MRZRenderer(font: font).render([String(character)], margin: 10)
            let threshold = MRZTextReader.otsu(cell)
            let pieces = CharacterLines.pieces(cell, threshold: threshold)
            if pieces.count == 1, CharacterLines.isChevron(pieces[0], cell, threshold: threshold) { fillers.append(character) }
        }
        #expect(fillers == ["<"])
    }
}
