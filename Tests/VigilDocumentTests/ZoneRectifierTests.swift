import Testing
import VigilCore
@testable import VigilDocument
import VigilSynth

/// A data page photographed at an angle (as the evaluation draws it): its zone's lines converge
/// and shrink toward the far side, and are straightened before they are read.
@Suite struct ZoneRectifierTests {
    @Test func aHomographyTakesFourPointsWhereItWasAskedTo() throws {
        let from = [Point2D(x: 0, y: 0), Point2D(x: 100, y: 0), Point2D(x: 100, y: 50), Point2D(x: 0, y: 50)]
        let to = [Point2D(x: 10, y: 5), Point2D(x: 90, y: 12), Point2D(x: 85, y: 40), Point2D(x: 12, y: 55)]
        let map = try #require(Homography(from: from, to: to))
        for (p, q) in zip(from, to) { #expect(map.map(p).distance(to: q) < 1e-6) }
        #expect(Homography(from: [from[0], from[0], from[0], from[0]], to: to) == nil)
    }

    @Test(arguments: [15.0, -20.0])
    func aPageSeenAtAnAngleIsStraightenedAndRead(_ degrees: Double) throws {
        let photo = DocumentEvaluation.photographed(try MRZLocatorTests.page(MRZTests.td3), degrees: degrees, sideways: true, table: 255)
        let zone = try #require(MRZLocator.zone(in: Deskew.rotated(photo, by: -Deskew.angle(of: photo))))
        // Straightened, more characters are read right than as it is.
        func right(_ lines: [String]) -> Int { zip(lines.joined(), MRZTests.td3.joined()).filter { $0 == $1 }.count }
        let asItIs = try MRZTextReaderTests.reader.read(zone).map(\.text)
        let straightened = try MRZTextReaderTests.reader.read(try #require(ZoneRectifier.rectified(zone))).map(\.text)
        #expect(right(straightened) > right(asItIs), "\(straightened) \(asItIs)")
        guard case .read(let mrz, _, _, _) = DocumentReader(font: try OCRBFont(pixelHeight: DocumentReader.templateSize)).read(photo, today: MRZDate(year: 2026, month: 12, day: 4))
        else { Issue.record("not read"); return }
        #expect(mrz.lines == MRZTests.td3)
    }

    @Test func anUprightZoneIsLeftAsItIs() throws {
        let zone = try #require(MRZLocator.zone(in: try MRZLocatorTests.page(MRZTests.td3)))
        #expect(ZoneRectifier.rectified(zone) == nil)
    }
}
