import Foundation
import Testing
import VigilCore
import VigilDocument
@testable import VigilSynth

/// The real specimen documents (`../shared/documents-real/`) against the zones read on them by
/// eye (`eval/documents-real.json`).
@Suite struct RealDocumentEvaluationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let annotations = Result {
        try JSONDecoder().decode(RealDocumentEvaluation.Annotations.self, from: Data(contentsOf: root.appendingPathComponent("eval/documents-real.json")))
    }
    /// The development set: `VIGIL_DOCUMENTS_REAL`, or `../shared/documents-real` beside the
    /// repository, where the project keeps it.
    static let folder = URL(fileURLWithPath: ProcessInfo.processInfo.environment["VIGIL_DOCUMENTS_REAL"]
        ?? root.deletingLastPathComponent().appendingPathComponent("shared/documents-real").path)
    /// Images the reader reads today, every character as printed; grows as the reader does.
    static let claimed = ["0_pass-lva.jpg", "100_id-che.jpg", "100_id-mac.jpg", "100_id-si.jpg", "100_id-usa.jpg", "100_pass-bdr.jpg", "100_pass-chn.jpg", "100_pass-cze.jpg",
                          "100_pass-cze2.jpg", "100_pass-fin.png", "100_pass-hrv.jpg", "100_pass-isl.png", "100_pass-ltu.jpg", "100_pass-lux.jpg",
                          "100_pass-polx.jpg", "100_pass-uto.jpg", "100_pass2-uto.jpg", "100_visa-polx.jpg", "100_visa-usa.jpg", "43_pass-fra.jpg",
                          "43_pass-twn.jpg", "53_id-d.jpg", "62_pass-aus.png", "62_pass-pol.png", "79_pass-can.jpg", "79_pass-hun.png",
                          "passport-td2.jpg", "passport-td2.png", "passport-td3.jpg", "passport-td3.png"]

    /// The annotators computed the check digits themselves; Vigil's parser agrees with them on
    /// every passport, card and visa.
    @Test func everyAnnotatedZoneParsesAsItsCheckDigitsSay() throws {
        let today = MRZDate(year: 2026, month: 12, day: 6)
        for truth in try Self.annotations.get().images {
            let mrz = try? MRZ(lines: truth.lines, today: today)
            let holds = mrz.map { $0.checks.checkDigits && $0.checks.dates } ?? false
            #expect(holds == truth.checkDigitsHold, "\(truth.file)")
        }
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: folder.path), "the development set is not at \(folder.path)"))
    func theDevelopmentSetGivesNoWrongValidReadingAndReadsEveryClaimedImage() throws {
        let evaluation = try RealDocumentEvaluation.run(directory: Self.folder, annotations: Self.annotations.get(), reader: DocumentReader(),
                                                        today: MRZDate(year: 2026, month: 12, day: 6))
        #expect(evaluation.outcomes.count == 38)
        #expect(evaluation.outcomes.filter { $0.kind == .wrongButValid }.map(\.file) == [])
        for file in Self.claimed { #expect(evaluation.outcomes.first { $0.file == file }?.kind == .right, "\(file)") }
    }
}
