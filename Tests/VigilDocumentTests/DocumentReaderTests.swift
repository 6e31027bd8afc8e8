import Testing
import VigilCore
@testable import VigilDocument

/// The reader works on at most `DocumentReader.workingPixels`, whatever the photo's size.
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
}
