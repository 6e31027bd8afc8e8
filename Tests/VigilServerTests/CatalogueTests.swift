import Foundation
import Testing
import VigilCore

/// The capture page's string catalogues: one per language, all with the same keys, covering every
/// `data-text` of the page and every `t("...")` of its script.
struct CatalogueTests {
    static let locales = ["en", "pt-BR", "es", "fr", "zh-Hans"]

    static func resource(_ name: String) throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/VigilServer/Resources/capture/\(name)")
        return try String(contentsOf: url, encoding: .utf8)
    }

    static func matches(_ pattern: String, in text: String) throws -> Set<String> {
        let regex = try NSRegularExpression(pattern: pattern)
        return Set(regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        })
    }

    @Test func everyLanguageHasEveryStringThePageUses() throws {
        let english = try CapturePageTests.catalogue("en")
        for locale in Self.locales {
            let catalogue = try CapturePageTests.catalogue(locale)
            #expect(Set(catalogue.keys) == Set(english.keys), "\(locale): \(Set(english.keys).symmetricDifference(catalogue.keys).sorted())")
            #expect(catalogue.values.allSatisfy { !$0.isEmpty }, "\(locale)")
        }
        let used = try Self.matches(#"data-text="([A-Za-z.]+)""#, in: try Self.resource("index.html"))
            .union(try Self.matches(#"\bt\("([A-Za-z._]+)"[),]"#, in: try Self.resource("capture.js")))
        #expect(!used.isEmpty && used.isSubset(of: english.keys), "\(used.subtracting(english.keys).sorted())")
    }

    /// Every guidance the server gives on a document photo is one the page knows and says in
    /// every language.
    @Test func everyDocumentGuidanceIsShownInEveryLanguage() throws {
        let script = try Self.resource("capture.js")
        let listed = try #require(script.range(of: "const DOCUMENT_GUIDANCE = [").flatMap { start in
            script.range(of: "];", range: start.upperBound..<script.endIndex).map { String(script[start.upperBound..<$0.lowerBound]) } })
        let known = try Self.matches(#""([A-Za-z]+)""#, in: listed)
        #expect(known == Set(DocumentGuidance.allCases.map(\.rawValue)), "\(known.symmetricDifference(DocumentGuidance.allCases.map(\.rawValue)).sorted())")
        for locale in Self.locales {
            let catalogue = try CapturePageTests.catalogue(locale)
            for guidance in DocumentGuidance.allCases { #expect(catalogue["document.guidance.\(guidance.rawValue)"] != nil, "\(locale): \(guidance)") }
        }
    }

    /// Every error the page can show has its title and a line saying what to do next, and the
    /// camera-denied help exists for each place the permission can live.
    @Test func everyErrorScreenSaysWhatToDoNext() throws {
        let script = try Self.resource("capture.js")
        // Codes passed to fail() directly, and those sessionError() and cameraFailure() map
        // server answers and camera errors to.
        var codes = try Self.matches(#"fail\("([a-z_]+)"\)"#, in: script)
        for function in ["sessionError", "cameraFailure"] {
            let body = try #require(script.range(of: "function \(function)").flatMap { start in
                script.range(of: "\n  }\n", range: start.upperBound..<script.endIndex).map { script[start.lowerBound..<$0.lowerBound] } })
            codes.formUnion(try Self.matches(#"return "([a-z_]+)";"#, in: String(body)))
        }
        #expect(codes.isSuperset(of: ["camera_denied", "no_camera", "camera_in_use", "network_lost", "invalid_link", "locked_out"]), "\(codes.sorted())")
        for locale in Self.locales {
            let catalogue = try CapturePageTests.catalogue(locale)
            for code in codes {
                #expect(catalogue["error.\(code)"] != nil && catalogue["help.\(code)"] != nil || code == "camera_denied", "\(locale): \(code)")
            }
            for place in ["ios", "android", "app", "desktop"] { #expect(catalogue["help.camera_denied.\(place)"] != nil, "\(locale): \(place)") }
        }
    }
}
