import Foundation
import Testing
import VigilCore
@testable import VigilSynth

/// The real-face report separates motions made alone and motions the annotator did not doubt,
/// and gives the clear motions made alone by motion too.
@Suite struct RealFaceEvaluationTests {
    @Test func theReportCountsDoubtedAndAccompaniedMotionsApart() throws {
        let annotation = try JSONDecoder().decode(ClipAnnotation.Event.self, from: Data(#"{"motion": "blink", "start": 1, "peak": 1.1, "end": 1.2, "doubtful": true}"#.utf8))
        #expect(annotation.doubtful == true)
        func trial(passed: Bool, together: Bool, doubtful: Bool) -> RealFaceEvaluation.Trial {
            .init(clip: "c", motion: .blink, fps: 10, passed: passed, reasons: passed ? [] : ["blink:timeout"], identityDistance: nil,
                  withAnother: together, doubtful: doubtful)
        }
        let report = RealFaceEvaluation(trials: [trial(passed: false, together: false, doubtful: true), trial(passed: false, together: true, doubtful: false),
                                                 trial(passed: true, together: false, doubtful: false), trial(passed: true, together: false, doubtful: false)]).table()
        let lines = report.split(separator: "\n")
        let rows = Dictionary(lines.map { line in
            (String(line.prefix(13)).trimmingCharacters(in: .whitespaces), line.components(separatedBy: "  ").filter { $0.contains("/") }.last ?? "")
        }, uniquingKeysWith: { first, _ in first })
        #expect(rows["all"]?.contains("(2/4)") == true)
        #expect(rows["alone"]?.contains("(1/3)") == true)
        #expect(rows["clear"]?.contains("(1/3)") == true)
        #expect(rows["clear alone"]?.contains("(0/2)") == true)
        let byMotion = try #require(lines.firstIndex { $0.hasPrefix("clear alone") }).advanced(by: 1)
        #expect(lines[byMotion].hasPrefix("  blink") && lines[byMotion].hasSuffix("(0/2)"))
    }
}
