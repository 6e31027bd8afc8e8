import Testing
import VigilCore
import VigilFace
@testable import VigilDocument
import VigilSynth

/// A photo that does not read is answered with what would help, told from the photo itself.
@Suite struct ZoneDiagnosisTests {
    static let reader = DocumentReader(font: try! OCRBFont(pixelHeight: DocumentReader.templateSize))
    static let today = MRZDate(year: 2026, month: 12, day: 4)

    /// What the reader says of a page of each format photographed under the evaluation's
    /// condition `name`.
    static func readings(_ name: String) throws -> [DocumentReader.Reading] {
        let condition = try #require(DocumentEvaluation.conditions.first { $0.name == name })
        let portrait = try Image(rgb: [UInt8](repeating: 128, count: 300 * 400 * 3), width: 300, height: 400)
        var random = SynthRandom(seed: 7)
        return try [MRZFormat.td1, .td2, .td3].map { format in
            let document = SpecimenDocument(format: format, fields: DocumentEvaluation.person(&random, today: today))
            let width = Int((condition.megapixels * condition.pageShare * condition.pageShare * 1_000_000 / 0.7).squareRoot())
            let photo = try DocumentEvaluation.disturb(try document.render(width: width, portrait: portrait), condition,
                                                       zone: try document.zoneRows(width: width), random: &random)
            return reader.read(photo, today: today)
        }
    }

    static func guidance(_ reading: DocumentReader.Reading) -> DocumentGuidance? {
        if case .unreadable(let guidance, _, _) = reading { guidance } else { nil }
    }

    @Test(arguments: [("too far (page 15% of the photo)", DocumentGuidance.tooFar), ("out of focus", .blurry), ("moving", .holdStill)])
    func aPhotoThatCannotBeReadSaysWhatWouldHelp(_ condition: String, _ expected: DocumentGuidance) throws {
        let guidance = try Self.readings(condition).map(Self.guidance)
        #expect(guidance == [expected, expected, expected], "\(guidance)")
    }

    @Test func printWashedOutByAReflectionIsGlare() {
        // Three lines of blocks, the middle one with a blank run as wide as two characters.
        var zone = PageImage(width: 400, height: 120)
        for (line, top) in [10, 50, 90].enumerated() {
            for x in stride(from: 10, to: 380, by: 12) where !(line == 1 && (150..<190).contains(x)) {
                for y in top..<(top + 20) { for dx in 0..<7 { zone[x + dx, y] = 0 } }
            }
        }
        #expect(ZoneDiagnosis.guidance(zone, ZoneDiagnosis.Lines(zone), outline: nil) == .glare)
    }

    @Test func aSharpPhotoWithoutAZoneHasNoDocument() throws {
        let page = try MRZLocatorTests.page([])
        #expect(Self.guidance(Self.reader.read(page, today: Self.today)) == .noDocument)
    }
}
