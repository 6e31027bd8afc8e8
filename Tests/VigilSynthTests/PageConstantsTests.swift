import Foundation
import Testing
import VigilSynth

/// The simulation models the capture page: the constants it copies from `capture.js` must stay
/// the page's, or the evaluation measures a page nobody opens.
@Suite struct PageConstantsTests {
    /// `const NAME = value;` declarations of the page's script, by name.
    static func pageConstants() throws -> [String: String] {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/VigilServer/Resources/capture/capture.js")
        let text = try String(contentsOf: script, encoding: .utf8)
        var constants: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("const "), let equals = trimmed.firstIndex(of: "="), let end = trimmed.firstIndex(of: ";") else { continue }
            let name = trimmed[trimmed.index(trimmed.startIndex, offsetBy: 6)..<equals].trimmingCharacters(in: .whitespaces)
            constants[name] = trimmed[trimmed.index(after: equals)..<end].trimmingCharacters(in: .whitespaces)
        }
        return constants
    }

    @Test func theSimulatedPageUploadsAndScalesAsTheRealPageDoes() throws {
        let page = try Self.pageConstants()
        #expect(page["UPLOAD_INTERVAL_MS"] == String(UploadPacer.intervalMs))
        #expect(page["UPLOAD_SLACK_MS"] == String(UploadPacer.slackMs))
        #expect(page["ANALYSIS_SHORT_SIDE"] == String(CameraConditions.analysisShortSide))
        #expect(page["JPEG_QUALITY"].flatMap(Double.init).map { Int(($0 * 100).rounded()) } == CameraConditions().jpegQuality)
    }
}
