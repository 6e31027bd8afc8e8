import Foundation
import Testing
import VigilCore
import VigilDocument
import VigilFace
@testable import VigilSynth

/// The photos `vigil synth documents --out` writes are the photos the evaluation judged: read
/// back from their bytes, each gives the reading and the signs of a copy the evaluation reported
/// (a genuine page in colour, a photocopy grey), not a grey page that looks like a photocopy.
@Suite(.serialized) struct DocumentEvaluationPhotoTests {
    @Test func aColourPhotoWrittenOutReadsAsTheEvaluationReadIt() throws {
        let grace = try Image(contentsOf: SynthFixtures.fixtures.appendingPathComponent("grace_hopper.jpg"))
        let reader = try DocumentReader()
        var kept: [(DocumentPresentation, [UInt8], DocumentReader.Reading, DocumentResult.Signs?)] = []
        let rows = try DocumentEvaluation.signs(count: 3, seed: 7, portraits: [grace], reader: reader, today: MRZDate.today) { presentation, _, jpeg, reading, signs, _ in
            kept.append((presentation, jpeg, reading, signs))
        }
        #expect(kept.count == 3 * DocumentPresentation.allCases.count)
        for (presentation, jpeg, reading, signs) in kept {
            // As `vigil document` reads a file: from its bytes.
            let photo = try Image(encoded: jpeg, maxPixels: DocumentReader.maxPixels)
            let again = reader.read(PageImage(rgb: photo.rgb, width: photo.width, height: photo.height), today: MRZDate.today)
            #expect(again == reading, "\(presentation)")
            #expect(again.zone.map { DocumentSigns.measure(photo, zone: $0) } == signs, "\(presentation)")
        }
        // The files of genuine pages are in colour, and not said to be copies.
        let genuine = kept.filter { $0.0 == .genuine }.compactMap(\.3)
        #expect(!genuine.isEmpty && genuine.allSatisfy { !$0.photocopy && $0.colourfulness > 10 })
        #expect(rows.first { $0.presentation == .genuine }?.photocopy == 0)
    }
}
