import Testing
import VigilCore
import VigilFace
@testable import VigilDocument
import VigilSynth

/// The page's own corners, placed from its zone and moved onto its edges where the photo shows
/// them.
@Suite struct DocumentPageTests {
    static let today = MRZDate(year: 2026, month: 12, day: 4)

    static func specimen(_ format: MRZFormat, width: Int) throws -> (SpecimenDocument, PageImage) {
        var random = SynthRandom(seed: 5)
        let document = SpecimenDocument(format: format, fields: DocumentEvaluation.person(&random, today: today))
        return (document, try document.render(width: width, portrait: try DocumentSignsTests.portrait()))
    }

    static func reading(_ photo: PageImage) throws -> DocumentReader.Reading {
        DocumentReader(font: try OCRBFont(pixelHeight: DocumentReader.templateSize)).read(photo, today: today)
    }

    @Test(arguments: [(MRZFormat.td3, 0.0, true), (.td1, 0.0, true), (.td2, 20.0, true), (.td3, 25.0, false), (.td1, -15.0, true)])
    func aPageOnATableHasItsCornersFound(_ format: MRZFormat, _ degrees: Double, _ sideways: Bool) throws {
        let (document, page) = try Self.specimen(format, width: 1600)
        let photo = DocumentEvaluation.photographed(page, degrees: degrees, sideways: sideways, table: 80)
        let reading = try Self.reading(photo)
        guard case .read(let mrz, _, _, let located) = reading else { Issue.record("not read: \(reading)"); return }
        #expect(mrz.lines == document.zone)
        let found = try #require(located)
        let truth = DocumentEvaluation.photographedCorners(width: page.width, height: page.height, degrees: degrees, sideways: sideways)
        let worst = zip(found.corners, truth).map { $0.distance(to: $1) }.max()!
        // Within 1% of the page's width at every corner.
        #expect(found.edgesSeen == 4 && worst < 0.01 * Double(page.width), "\(found.corners) against \(truth): \(worst) px")
    }

    @Test func aPageFillingThePhotoShowsNoEdgeAndIsPlacedFromItsZone() throws {
        let (_, page) = try Self.specimen(.td3, width: 1600)
        let found = try #require(try Self.reading(page).page)
        #expect(found.edgesSeen == 0, "\(found.corners)")
        let truth = [Point2D(x: 0, y: 0), Point2D(x: 1600, y: 0), Point2D(x: 1600, y: Double(page.height)), Point2D(x: 0, y: Double(page.height))]
        // Where ICAO's layout puts the page around the zone: the specimen's own layout differs
        // from it by a few millimetres.
        let worst = zip(found.corners, truth).map { $0.distance(to: $1) }.max()!
        #expect(worst < 0.05 * 1600, "\(found.corners): \(worst) px")
    }

    /// A zone converging faster than any photo of a page puts the page's top beyond the zone's
    /// vanishing line: no page is placed, none at infinity or turned inside out.
    @Test func aZoneAtAnImpossibleAngleGivesNoPage() {
        let photo = PageImage(width: 200, height: 200, value: 200)
        let zone = [Point2D(x: 99, y: 150), Point2D(x: 101, y: 150), Point2D(x: 200, y: 170), Point2D(x: 0, y: 170)]
        #expect(DocumentPage.locate(in: photo, zone: zone, format: .td3) == nil)
        let level = [Point2D(x: 10, y: 150), Point2D(x: 190, y: 150), Point2D(x: 190, y: 170), Point2D(x: 10, y: 170)]
        #expect(DocumentPage.locate(in: photo, zone: level, format: .td3) != nil)
    }

    @Test func aPointIsOnThePageOnlyInsideItsCorners() {
        let page = DocumentPage(corners: [Point2D(x: 10, y: 10), Point2D(x: 110, y: 20), Point2D(x: 100, y: 80), Point2D(x: 20, y: 70)], edgesSeen: 4)
        #expect(page.contains(Point2D(x: 60, y: 45)))
        #expect(!page.contains(Point2D(x: 5, y: 45)) && !page.contains(Point2D(x: 60, y: 90)) && !page.contains(Point2D(x: 108, y: 75)))
        #expect(page.bounds(width: 100, height: 100) == Rect(x: 10, y: 10, width: 90, height: 70))
    }
}
