import Foundation
import Testing
import VigilDocument
import VigilFace

/// `vigil document IMAGE` on pages drawn with OCR-B: JSON out, exit 0 valid, 1 invalid or
/// unreadable, 2 bad input.
@Suite struct DocumentCLITests {
    static let specimen = ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"]

    /// A page (as JPEG) with a few printed fields and `zone` at the bottom.
    static func page(_ zone: [String]) throws -> String {
        var page = PageImage(width: 1400, height: 700, value: 240)
        let fields = MRZRenderer(font: try OCRBFont(pixelHeight: 24)).render(["PASSPORT  UTO", "ERIKSSON", "ANNA MARIA"], margin: 0)
        let lines = MRZRenderer(font: try OCRBFont(pixelHeight: 36)).render(zone, margin: 0)
        page.overprint(fields, x: 400, y: 100)
        page.overprint(lines, x: (1400 - lines.width) / 2, y: 700 - lines.height - 50)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-document-\(UUID().uuidString).jpg").path
        try Data(try page.image().jpegData(quality: 90)).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aPassportPageIsReadWithEveryFieldAndExitsZero() throws {
        let path = try Self.page(Self.specimen)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try CLITests.run(["document", path])
        let json = try #require((run.json as? [String: Any])?["document"] as? [String: Any], "\(run.stderr)")
        #expect(run.status == 1)   // read, every check digit holds, but ICAO's specimen expired in 2012
        #expect(json["documentNumber"] as? String == "L898902C3" && json["surname"] as? String == "ERIKSSON" && json["givenNames"] as? String == "ANNA MARIA")
        #expect(json["dateOfBirth"] as? String == "1974-08-12" && json["expiryDate"] as? String == "2012-04-15" && json["type"] as? String == "TD3")
        let checks = try #require(json["checks"] as? [String: Any])
        #expect(checks["checkDigits"] as? Bool == true && checks["expired"] as? Bool == true)
    }

    @Test func aValidUnexpiredPassportExitsZeroAndAMisprintedOneExitsOne() throws {
        // The specimen with an expiry in 2034 and its check digits recomputed.
        var line2 = Array(Self.specimen[1])
        line2.replaceSubrange(21..<28, with: "3404159")
        let composite = MRZCheckDigit.of(String(line2[0..<10]) + String(line2[13..<20]) + String(line2[21..<43]))
        line2[43] = Character(String(composite))
        let valid = try Self.page([Self.specimen[0], String(line2)])
        defer { try? FileManager.default.removeItem(atPath: valid) }
        let run = try CLITests.run(["document", valid])
        #expect(run.status == 0, "\(String(decoding: run.stdout, as: UTF8.self))")
        line2[43] = Character(String((composite + 1) % 10))
        let misprinted = try Self.page([Self.specimen[0], String(line2)])
        defer { try? FileManager.default.removeItem(atPath: misprinted) }
        let bad = try CLITests.run(["document", misprinted])
        let document = (bad.json as? [String: Any])?["document"] as? [String: Any]
        #expect(bad.status == 1 && (document?["checks"] as? [String: Any])?["checkDigits"] as? Bool == false)
    }

    /// Several images give one JSON line each, naming its file and the processor time its read took.
    @Test func severalImagesGiveALineEachWithFileAndTime() throws {
        let passport = try Self.page(Self.specimen), blank = try Self.page([])
        defer { for path in [passport, blank] { try? FileManager.default.removeItem(atPath: path) } }
        let run = try CLITests.run(["document", passport, blank])
        let lines = String(decoding: run.stdout, as: UTF8.self).split(separator: "\n")
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.map { $0["file"] as? String } == [passport, blank])
        #expect(lines.allSatisfy { ($0["cpuMs"] as? Double ?? 0) > 0 })
        #expect(((lines.first?["document"] as? [String: Any])?["surname"] as? String) == "ERIKSSON")
        #expect(run.status == 1)
    }

    @Test func noZoneExitsOneAndBadInputExitsTwo() throws {
        let blank = try Self.page([])
        defer { try? FileManager.default.removeItem(atPath: blank) }
        let run = try CLITests.run(["document", blank])
        let document = (run.json as? [String: Any])?["document"] as? [String: Any]
        #expect(run.status == 1 && (document?["checks"] as? [String: Any])?["readable"] as? Bool == false && document?["reason"] != nil)
        let text = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-not-an-image-\(UUID().uuidString).jpg").path
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: text))
        defer { try? FileManager.default.removeItem(atPath: text) }
        #expect(try CLITests.run(["document", text]).status == 2)
        #expect(try CLITests.run(["document"]).status == 2)
    }
}

extension DocumentCLITests {
    /// A short pass of the document evaluation: every condition gets its row, and clean 4 MP
    /// pages are read (its accuracy is `scripts/eval-documents`' business, not this test's).
    @Test func theDocumentEvaluationPrintsARowForEveryCondition() throws {
        let run = try CLITests.run(["synth", "documents", "--count", "3", "--seed", "2"])
        let out = String(decoding: run.stdout, as: UTF8.self)
        #expect([0, 1].contains(run.status), "\(run.stderr)")
        for condition in ["clean 1 MP", "clean 2 MP", "clean 4 MP", "turned 4 degrees", "blurred", "noisy", "JPEG 60"] {
            #expect(out.contains(condition), "\(condition) missing from \(out)")
        }
        let clean = try #require(out.split(separator: "\n").first { $0.hasPrefix("clean 4 MP") })
        #expect(!clean.contains("(0/3)"), "\(clean)")
    }
}
