import Testing
@testable import VigilDocument

/// Pages photographed turned by a few degrees. (Turned by 8 degrees, the page is straightened
/// to within 0.15 degrees, and that is enough for 0 to be read as O at the end of a 44-character
/// line: not yet handled.)
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
}
