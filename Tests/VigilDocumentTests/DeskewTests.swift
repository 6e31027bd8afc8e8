import Testing
@testable import VigilDocument

/// Pages photographed turned by a few degrees.
@Suite struct DeskewTests {
    @Test(arguments: [5.0, -5.0, 2.5])
    func aTurnedPageIsStraightenedAndRead(_ degrees: Double) throws {
        let page = try MRZLocatorTests.page(MRZTests.td3)
        let turned = Deskew.rotated(page, by: degrees)
        let found = Deskew.angle(of: turned)
        #expect(abs(found - degrees) <= 0.1)
        let straight = Deskew.rotated(turned, by: -found)
        let zone = try #require(MRZLocator.zone(in: straight))
        #expect(try MRZTextReaderTests.reader.read(zone).map(\.text) == MRZTests.td3)
    }

    /// Turned by 8 degrees, the page is straightened to within 0.15 degrees, which left `0` read
    /// as `O` at the end of a 44-character line until each position was matched only against
    /// what its field may hold. Turned the other way, a letter is still too close to another
    /// and the page is refused: read exactly or refused, never read otherwise.
    @Test(arguments: [(8.0, true), (-8.0, false)])
    func aPageTurnedFurtherIsReadExactlyOrRefused(_ degrees: Double, _ read: Bool) throws {
        let turned = Deskew.rotated(try MRZLocatorTests.page(MRZTests.td3), by: degrees)
        let reading = DocumentReader(font: try OCRBFont(pixelHeight: DocumentReader.templateSize)).read(turned, today: MRZDate(year: 2026, month: 12, day: 4))
        switch reading {
        case .read(let mrz, _, _, _): #expect(read && mrz.lines == MRZTests.td3, "\(mrz.lines)")
        case .unreadable(let guidance, _, _): #expect(!read && guidance == .unreadable)
        }
    }
}
