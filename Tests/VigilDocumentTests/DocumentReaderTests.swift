import Testing
import VigilCore
@testable import VigilDocument

/// The reader works on at most `DocumentReader.workingPixels`, whatever the photo's size, and
/// tells one document from two by what reads.
@Suite struct DocumentReaderTests {
    static let reader = try! DocumentReader()
    static let today = MRZDate(year: 2026, month: 12, day: 6)

    /// `page` enlarged `factor` times, each pixel repeated.
    static func enlarged(_ page: PageImage, by factor: Int) -> PageImage {
        var out = PageImage(width: page.width * factor, height: page.height * factor)
        for y in 0..<out.height { for x in 0..<out.width { out[x, y] = page[x / factor, y / factor] } }
        return out
    }

    /// A 5.5 MP photo of the page is read shrunk to the working size, and where its zone lies is
    /// told on the photo as sent: twice where it lies on the page itself.
    @Test func aPhotoLargerThanTheWorkingSizeIsReadShrunkAndPlacedOnThePhotoAsSent() throws {
        let page = try MRZLocatorTests.page(MRZTests.td3)
        let small = Self.reader.read(page, today: Self.today)
        let large = Self.reader.read(Self.enlarged(page, by: 2), today: Self.today)
        guard case .read(let mrz, _, let zone, _) = small, case .read(let enlargedMRZ, _, let enlargedZone, _) = large else {
            Issue.record("not read: \(small), \(large)")
            return
        }
        #expect(enlargedMRZ == mrz)
        for (near, far) in zip(zone, enlargedZone) {
            #expect(abs(far.x - 2 * near.x) < 8 && abs(far.y - 2 * near.y) < 8, "\(near) \(far)")
        }
    }

    /// Printed lines as long and even as a zone's (a visa's or a card's fields) above the zone
    /// are not a second document: only what reads as a zone counts.
    @Test func linesOfOtherTextThatLookLikeAZoneAreNotASecondDocument() throws {
        var page = try MRZLocatorTests.page(MRZTests.td3)
        let decoy = MRZRenderer(font: try OCRBFont(pixelHeight: 36)).render(["UTOPIAN REPUBLIC MINISTRY OF FOREIGN AFFAIRS",
                                                                            "PASSPORT ISSUED AT ZENITH ON 15 APRIL 2012 X"], margin: 0)
        page.overprint(decoy, x: (page.width - decoy.width) / 2, y: 620)
        #expect(MRZLocator.frames(in: page).count == 2)
        guard case .read(let mrz, _, _, _) = Self.reader.read(page, today: Self.today) else {
            Issue.record("not read")
            return
        }
        #expect(mrz.lines == MRZTests.td3)
    }

    /// A sharp zone whose capitals are smaller than either reader reads (a low-resolution scan)
    /// is too far, not blurred: its edges of a pixel or two are as sharp as such print gets.
    @Test func aSharpZoneOfTinyCapitalsIsTooFarNotBlurred() throws {
        let zone = MRZRenderer(font: try OCRBFont(pixelHeight: 7)).render(MRZTests.td3, margin: 0)
        var page = PageImage(width: zone.width * 10 / 8, height: zone.height * 3, value: 235)
        page.overprint(zone, x: zone.width / 8, y: zone.height)
        guard case .unreadable(let guidance, _, let found) = Self.reader.read(page, today: Self.today) else {
            Issue.record("read")
            return
        }
        #expect(guidance == .tooFar && found != nil)
    }

    /// A visa's second line ends in optional data, letters included, where a passport's has
    /// two check digits: read as a passport's, its letters were matched against digits only.
    @Test func aVisaPageReadsItsSecondLineAsAVisas() throws {
        let fields = MRZComposer.Fields(documentCode: "V", issuingState: "UTO", documentNumber: "L898902C3", surname: "ERIKSSON",
                                        givenNames: "ANNA MARIA", nationality: "UTO", dateOfBirth: MRZDate(year: 1974, month: 8, day: 12),
                                        expiryDate: MRZDate(year: 2030, month: 4, day: 15), sex: "F", optionalData: "ZENITH TOURISTAB")
        let lines = MRZComposer.lines(.mrva, fields)
        #expect(lines[1].hasSuffix("AB"))
        guard case .read(let mrz, _, _, _) = Self.reader.read(try MRZLocatorTests.page(lines), today: Self.today) else {
            Issue.record("not read")
            return
        }
        #expect(mrz.format == .mrva && mrz.lines == lines && mrz.checks.all)
    }

    /// Print too small for the templates alone reads through Tesseract (`MRZLineRecognizer`)
    /// when the check digits hold and every letter is one the templates read too or one
    /// Tesseract is sure of: down to a font of 10 pixels, where the templates misread letters.
    @Test(arguments: [14, 10]) func smallPrintReadsThroughTheRecogniser(_ pixelHeight: Int) throws {
        let zone = MRZRenderer(font: try OCRBFont(pixelHeight: pixelHeight)).render(MRZTests.td3, margin: 0)
        var page = PageImage(width: zone.width * 10 / 8, height: zone.height * 3, value: 235)
        page.overprint(zone, x: zone.width / 8, y: zone.height)
        guard case .read(let mrz, _, _, _) = Self.reader.read(page, today: Self.today) else {
            Issue.record("not read")
            return
        }
        #expect(mrz.lines == MRZTests.td3)
    }

    /// Small print that Tesseract misreads is refused, not read otherwise: at a font of 12
    /// pixels it reads the nationality `UTO` as `UT0`, with every check digit holding.
    @Test(arguments: [11, 12, 13]) func smallPrintIsReadAsPrintedOrNotAtAll(_ pixelHeight: Int) throws {
        let zone = MRZRenderer(font: try OCRBFont(pixelHeight: pixelHeight)).render(MRZTests.td3, margin: 0)
        var page = PageImage(width: zone.width * 10 / 8, height: zone.height * 3, value: 235)
        page.overprint(zone, x: zone.width / 8, y: zone.height)
        if case .read(let mrz, _, _, _) = Self.reader.read(page, today: Self.today) { #expect(mrz.lines == MRZTests.td3) }
    }

    /// A page lying on its side, either way, reads, and its zone is placed on the photo as sent:
    /// where the upright page's zone lies, turned with it.
    @Test(arguments: [1, 3]) func aPageOnItsSideReadsAndIsPlacedOnThePhotoAsSent(_ quarters: Int) throws {
        let page = try MRZLocatorTests.page(MRZTests.td3)
        guard case .read(let mrz, _, let zone, _) = Self.reader.read(page, today: Self.today),
              case .read(let turnedMRZ, _, let turnedZone, _) = Self.reader.read(page.quarterTurned(quarters), today: Self.today) else {
            Issue.record("not read")
            return
        }
        #expect(turnedMRZ == mrz)
        let back = turnedZone.map { PageImage.sourceOfQuarterTurned($0, quarters, width: page.width, height: page.height) }
        for corner in zone { #expect(back.contains { $0.distance(to: corner) < 8 }, "\(corner) \(back)") }
    }

    /// A page turned by more than most photos are (22 degrees, where the search first looks
    /// within 15) still reads.
    @Test func aPageTurnedFurtherThanUsualReads() throws {
        var page = PageImage(width: 1800, height: 1500, value: 235)
        page.paste(try MRZLocatorTests.page(MRZTests.td3), x: 200, y: 260)
        guard case .read(let mrz, _, _, _) = Self.reader.read(Deskew.rotated(page, by: 22), today: Self.today) else {
            Issue.record("not read")
            return
        }
        #expect(mrz.lines == MRZTests.td3)
    }
}
