import Foundation
import Testing
import VigilFace
import VigilSynth
import VigilTestSupport

/// The capture page's document step in Debian's headless Chromium, its fake camera showing a
/// passport's data page or no document at all.
@Suite(.serialized) struct DocumentPageTests {
    /// Six seconds of a camera held over a passport data page of Grace Hopper, 1280x720 at 10 fps.
    static func passportRecording() throws -> URL {
        let jpeg = try DocumentStepTests.passportJPEG(portrait: try DocumentStepTests.fixture("grace_hopper.jpg"))
        let page = try Image(encoded: jpeg, maxPixels: 4_000_000).resized(width: 1100, height: 770)
        var rgb = [UInt8](repeating: 70, count: 1280 * 720 * 3)
        let left = 90, top = -25   // the page fills the frame; its top edge just out of view
        for y in 0..<720 {
            for x in 0..<1280 {
                let px = x - left, py = y - top
                guard px >= 0, py >= 0, px < page.width, py < page.height else { continue }
                for c in 0..<3 { rgb[(y * 1280 + x) * 3 + c] = page.rgb[(py * page.width + px) * 3 + c] }
            }
        }
        let frame = try Image(rgb: rgb, width: 1280, height: 720)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-document-\(UUID().uuidString).y4m")
        let writer = try Y4MWriter(url: url, width: 1280, height: 720, rate: FrameRate(frames: 10))
        for _ in 0..<60 { try writer.write(frame) }
        try writer.close()
        return url
    }

    static func policy(_ locale: String = "en") -> [String: Any] {
        ["policy": ["count": 1, "document": ["types": ["passport"]]], "locale": locale]
    }

    @Test func thePassportIsPhotographedThenThePersonAgreesToTheFaceStep() throws {
        let t = try TestServer()
        let (id, token) = t.createSession(Self.policy())
        let video = try Self.passportRecording()
        defer { try? FileManager.default.removeItem(at: video) }
        let browser = try HeadlessChromium(camera: video)
        defer { browser.shutdown() }
        try browser.open("http://127.0.0.1:\(t.port)/c/\(id)#\(token)", beforeLoad: CapturePageTests.bridge)
        try browser.wait(for: "document.getElementById('screen-document-intro').hasAttribute('data-active')", timeout: 20, what: "the document intro")
        #expect(try browser.evaluate("document.getElementById('document-skip').hidden") as? Bool == true)
        try browser.screenshot().write(to: CapturePageTests.artefacts.appendingPathComponent("document-intro.png"))
        _ = try browser.evaluate("document.getElementById('document-start').click()")
        try browser.wait(for: "document.getElementById('screen-document-done').hasAttribute('data-active')", timeout: 30, what: "the document captured")
        try browser.screenshot().write(to: CapturePageTests.artefacts.appendingPathComponent("document-captured.png"))
        let stored = try #require(try t.store.session(id: id, tenantId: t.tenantIds["a"]!))
        #expect(stored.document?.surname == "HOPPER" && stored.document?.type == "TD3")
        let events = try CapturePageTests.envelopes(browser).compactMap { $0["data"] as? [String: Any] }
        #expect(events.contains { $0["type"] as? String == "document.detected" }, "\(events)")
        #expect(events.contains { $0["type"] as? String == "document.captured" && $0["format"] as? String == "TD3" }, "\(events)")
        // The person agrees and goes on to the face step.
        _ = try browser.evaluate("document.getElementById('document-continue').click()")
        try browser.wait(for: "document.getElementById('screen-intro').hasAttribute('data-active')", timeout: 10, what: "the face step's intro")
    }

    @Test(arguments: ["en", "pt-BR", "es", "fr", "zh-Hans"])
    func withoutADocumentInViewThePageSaysWhatToShowInTheSessionsLanguage(_ locale: String) throws {
        let t = try TestServer()
        let (id, token) = t.createSession(Self.policy(locale))
        let browser = try HeadlessChromium(camera: nil)   // Chromium's test pattern: no document
        defer { browser.shutdown() }
        try browser.open("http://127.0.0.1:\(t.port)/c/\(id)?autostart=1#\(token)", beforeLoad: CapturePageTests.bridge)
        let strings = try CapturePageTests.catalogue(locale)
        try browser.wait(for: "document.getElementById('document-guidance').textContent === \(CapturePageTests.jsString(strings["document.guidance.noDocument"] ?? "?"))",
                         timeout: 20, what: "the no-document guidance")
        #expect(try CapturePageTests.text(browser, "document-prompt") == strings["document.hold"])
        #expect(try browser.evaluate("document.documentElement.lang") as? String == locale)
        try browser.screenshot().write(to: CapturePageTests.artefacts.appendingPathComponent("document-guidance-\(locale).png"))
        #expect(try t.store.session(id: id, tenantId: t.tenantIds["a"]!)?.document == nil)
    }

    /// A passport where only identity cards are accepted, and no attempt left after it: the page
    /// shows the failed result, as after the last failed face attempt.
    @Test func theLastDocumentTheAttemptsAllowRefusedEndsOnTheFailedResult() throws {
        let t = try TestServer()
        let (id, token) = t.createSession(["policy": ["count": 1, "maxAttempts": 1, "document": ["types": ["idCard"]]]])
        let video = try Self.passportRecording()
        defer { try? FileManager.default.removeItem(at: video) }
        let browser = try HeadlessChromium(camera: video)
        defer { browser.shutdown() }
        try browser.open("http://127.0.0.1:\(t.port)/c/\(id)?autostart=1#\(token)", beforeLoad: CapturePageTests.bridge)
        try browser.wait(for: "document.getElementById('screen-result').hasAttribute('data-active')", timeout: 30, what: "the failed result")
        try browser.screenshot().write(to: CapturePageTests.artefacts.appendingPathComponent("document-locked-out.png"))
        let strings = try CapturePageTests.catalogue("en")
        #expect(try CapturePageTests.text(browser, "result-title") == strings["error.locked_out"])
        #expect(try CapturePageTests.text(browser, "result-feedback") == strings["feedback.documentIssue"])
        let events = try CapturePageTests.envelopes(browser).compactMap { $0["data"] as? [String: Any] }
        #expect(events.contains { $0["type"] as? String == "session.completed" && $0["outcome"] as? String == "failed" }, "\(events)")
        let result = t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["a"]).json["result"] as? [String: Any]
        #expect(result?["lockedOut"] as? Bool == true)
    }

    @Test func anOptionalDocumentCanBeSkipped() throws {
        let t = try TestServer()
        let (id, token) = t.createSession(["policy": ["count": 1, "document": ["required": false]]])
        let browser = try HeadlessChromium(camera: nil)
        defer { browser.shutdown() }
        try browser.open("http://127.0.0.1:\(t.port)/c/\(id)#\(token)", beforeLoad: CapturePageTests.bridge)
        try browser.wait(for: "document.getElementById('screen-document-intro').hasAttribute('data-active')", timeout: 20, what: "the document intro")
        _ = try browser.evaluate("document.getElementById('document-skip').click()")
        try browser.wait(for: "document.getElementById('screen-intro').hasAttribute('data-active')", timeout: 10, what: "the face step's intro")
    }
}
