import Testing
@testable import VigilDocument

/// A page photographed on a dark table, and the background removal that lets its zone be found.
@Suite struct BackgroundRemovalTests {
    static func onATable(_ page: PageImage, grey: UInt8 = 50) -> PageImage {
        var photo = PageImage(width: page.width * 6 / 5, height: page.height * 6 / 5, value: grey)
        photo.paste(page, x: page.width / 10, y: page.height / 10)
        return photo
    }

    @Test func aPageOnADarkTableIsReadOnlyOnceTheTableIsRemoved() throws {
        let photo = Self.onATable(try MRZLocatorTests.page(MRZTests.td3))
        // The table is "ink" in every row of the page: no line stands out.
        #expect(MRZLocator.zone(in: photo) == nil)
        guard case .read(let mrz, _, _, _) = DocumentReader(font: try OCRBFont(pixelHeight: DocumentReader.templateSize)).read(photo, today: MRZDate(year: 2026, month: 12, day: 4))
        else { Issue.record("not read"); return }
        #expect(mrz.lines == MRZTests.td3)
    }

    @Test func strokesStayAndWideRegionsGoWhite() {
        var image = PageImage(width: 60, height: 40, value: 200)
        for y in 0..<40 { for x in 0..<30 { image[x, y] = 40 } }      // a dark region, wider than the square
        for y in 5..<35 { for x in 44..<47 { image[x, y] = 30 } }     // a stroke 3 pixels wide, on paper
        let flat = BackgroundRemoval.flattened(image, side: 9)
        #expect(flat[10, 20] == 255 && flat[50, 20] == 255)          // inside the region, and paper
        #expect(flat[45, 20] == 255 - (200 - 30))                     // the stroke keeps its contrast
    }
}
