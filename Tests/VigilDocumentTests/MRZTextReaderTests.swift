import Foundation
import Testing
@testable import VigilDocument
import VigilSynth

/// Zones drawn in OCR-B (Debian's `fonts-ocr-b`) and read back.
@Suite struct MRZTextReaderTests {
    static let font = try! OCRBFont(pixelHeight: 40)
    static let reader = MRZTextReader(font: font)

    static func noisy(_ image: PageImage, sigma: Double, seed: UInt64) -> PageImage {
        var state = seed, out = image
        func uniform() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        for i in out.pixels.indices {
            let gaussian = (-2 * log(max(1e-12, uniform()))).squareRoot() * cos(2 * Double.pi * uniform())
            out.pixels[i] = UInt8(max(0, min(255, Double(out.pixels[i]) + gaussian * sigma)))
        }
        return out
    }

    @Test(arguments: [MRZTests.td3, MRZTests.td2, MRZTests.td1])
    func aCleanZoneReadsBackExactly(_ lines: [String]) throws {
        let image = MRZRenderer(font: Self.font).render(lines, margin: 12)
        let read = try Self.reader.read(image)
        #expect(read.map(\.text) == lines)
        #expect(try MRZ(lines: read.map(\.text), today: MRZTests.today).checks.all)
    }

    @Test func aNoisyZoneReadsBackExactly() throws {
        let image = Self.noisy(MRZRenderer(font: Self.font).render(MRZTests.td3, margin: 12), sigma: 25, seed: 7)
        #expect(try Self.reader.read(image).map(\.text) == MRZTests.td3)
    }

    @Test func aBlankImageIsNoZone() {
        #expect(throws: MRZTextReader.Failure.noLines(found: 0)) { try Self.reader.read(PageImage(width: 400, height: 100)) }
    }
}

extension MRZTextReaderTests {
    /// Zones printed at other sizes than the templates, blurred and noisy. A 2 MP photo of a
    /// passport gives a zone about 1,300 pixels wide, whose capitals are about 30 pixels high;
    /// 26 here gives capitals of 18. (At 18, capitals of 13, the reader fails: its lower bound.)
    @Test(arguments: [26, 40, 60])
    func aZoneAtAnotherSizeBlurredAndNoisyReadsBack(_ size: Int) throws {
        let font = try OCRBFont(pixelHeight: size)
        for lines in [MRZTests.td3, MRZTests.td1] {
            let image = Self.noisy(DocumentEvaluation.boxBlur(MRZRenderer(font: font).render(lines, margin: 10), radius: 1), sigma: 15, seed: UInt64(size))
            let read = try Self.reader.read(image)
            #expect(read.map(\.text) == lines, "size \(size)")
        }
    }

    /// A letter that beat a letter with less ink by little is doubtful (`Q` over `O`); the other
    /// way round, or over a digit, is not.
    @Test func aLetterThatNearlyLacksItsOwnStrokeIsDoubtful() {
        let line = { (text: String, runnerUp: Character, margin: Double) in
            MRZTextReader.Line(text: text, margins: [0.3, margin, 0.3], scores: [0.9, 0.9, 0.9], runnersUp: ["X", runnerUp, "V"])
        }
        #expect(Self.reader.hasDoubtfulLetter(line("KQW", "O", 0.04), margin: 0.06))
        #expect(!Self.reader.hasDoubtfulLetter(line("KOW", "Q", 0.01), margin: 0.06))
        #expect(!Self.reader.hasDoubtfulLetter(line("KOW", "0", 0.01), margin: 0.06))
        #expect(!Self.reader.hasDoubtfulLetter(line("KQW", "O", 0.2), margin: 0.06))
    }
}
