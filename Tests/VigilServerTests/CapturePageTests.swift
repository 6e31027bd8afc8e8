import Foundation
import Testing
import VigilCore
import VigilFace
import VigilSynth
import VigilTestSupport

/// The capture page in Debian's headless Chromium with a fake camera, against a real server:
/// outcomes are read through the tenant API and the page's bridge envelopes through a
/// `window.VigilNative` injected at document start, as a native host does.
@Suite(.serialized) struct CapturePageTests {
    /// Records every envelope the page sends to the host.
    static let bridge = "window.__envelopes = []; window.VigilNative = { postMessage: (m) => window.__envelopes.push(JSON.parse(m)) };"

    static var artefacts: URL {
        let url = URL(fileURLWithPath: ProcessInfo.processInfo.environment["VIGIL_ARTEFACTS"] ?? ".build/test-artefacts")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func catalogue(_ locale: String) throws -> [String: String] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/VigilServer/Resources/capture/i18n-\(locale).json")
        return try JSONDecoder().decode([String: String].self, from: Data(contentsOf: url))
    }

    static func envelopes(_ browser: HeadlessChromium) throws -> [[String: Any]] {
        try browser.evaluate("window.__envelopes") as? [[String: Any]] ?? []
    }

    static func text(_ browser: HeadlessChromium, _ id: String) throws -> String {
        try browser.evaluate("document.getElementById('\(id)').textContent") as? String ?? ""
    }

    @Test func aDeniedCameraShowsItsScreenAndTellsTheHost() throws {
        let t = try TestServer()
        let (id, token) = t.createSession()
        let browser = try HeadlessChromium(camera: nil, grantCamera: false)
        defer { browser.shutdown() }
        try browser.setCameraPermission(origin: "http://127.0.0.1:\(t.port)", granted: false)
        try browser.open("http://127.0.0.1:\(t.port)/c/\(id)?autostart=1#\(token)", beforeLoad: Self.bridge)
        try browser.wait(for: "document.getElementById('screen-error').hasAttribute('data-active')", timeout: 20, what: "the error screen")
        #expect(try Self.text(browser, "error-title") == Self.catalogue("en")["error.camera_denied"])
        let kinds = try Self.envelopes(browser).map { $0["kind"] as? String ?? "" }
        #expect(kinds.first == "ready")
        let error = try Self.envelopes(browser).first { $0["kind"] as? String == "error" }
        #expect((error?["data"] as? [String: Any])?["code"] as? String == "camera_denied")
        #expect(try Self.envelopes(browser).allSatisfy { $0["source"] as? String == "vigil" && $0["version"] as? Int == 1 })
        // The token left the address bar.
        #expect(try browser.evaluate("location.hash") as? String == "")
    }

    @Test(arguments: ["en", "pt-BR", "es", "fr", "zh-Hans"])
    func theGuidanceScreenSpeaksTheSessionsLanguage(_ locale: String) throws {
        let t = try TestServer()
        let (id, token) = t.createSession(["riskLevel": "low", "locale": locale])
        let browser = try HeadlessChromium(camera: nil)   // Chromium's test pattern: no face
        defer { browser.shutdown() }
        try browser.open("http://127.0.0.1:\(t.port)/c/\(id)?autostart=1#\(token)", beforeLoad: Self.bridge)
        try browser.wait(for: "document.getElementById('guidance').textContent.length > 0", timeout: 20, what: "guidance")
        let strings = try Self.catalogue(locale)
        #expect(try Self.text(browser, "guidance") == strings["feedback.faceNotFound"])
        #expect(try Self.text(browser, "prompt") == strings["lookAtCamera"])
        #expect(try browser.evaluate("document.documentElement.lang") as? String == locale)
        try browser.screenshot().write(to: Self.artefacts.appendingPathComponent("capture-guidance-\(locale).png"))
    }

    /// A recording made for this session's one-motion plan: the person rests until the prompt has
    /// surely appeared, turns, and rests again.
    static func recording(promptAtMs: Int, durationMs: Int) throws -> URL {
        let analyzer = try FaceAnalyzer(models: TestServer.models)
        let rig = try FaceRig(photo: try Image(contentsOf: DeviceAPITests.fixtures.appendingPathComponent("grace_hopper.jpg")), name: "grace",
                              analyzer: analyzer)
        var person = SyntheticPerson(rig: rig, light: .live(strength: 0.15), seed: 5)
        var random = SynthRandom(seed: 11)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-e2e-\(UUID().uuidString).y4m")
        let writer = try Y4MWriter(url: url, width: 640, height: 480, framesPerSecond: 10)
        var screen = ScreenState()
        for ms in stride(from: 0, to: durationMs, by: 100) {
            if ms >= promptAtMs, screen.prompt == nil { screen.prompt = (0, .turnLeft, ms) }
            var pixels = person.frame(at: ms, screen: screen)
            pixels.addNoise(sigma: 2, using: &random)
            try writer.write(pixels.image())
        }
        try writer.close()
        return url
    }

    @Test func aCooperatingPersonOnAOneMotionPolicyPassesInTheBrowser() throws {
        let t = try TestServer()
        let (id, token) = t.createSession(["policy": ["motions": ["turnLeft"], "count": 1, "type": "motion"]])
        let video = try Self.recording(promptAtMs: 3500, durationMs: 16_000)
        defer { try? FileManager.default.removeItem(at: video) }
        let browser = try HeadlessChromium(camera: video)
        defer { browser.shutdown() }
        try browser.open("http://127.0.0.1:\(t.port)/c/\(id)?autostart=1#\(token)", beforeLoad: Self.bridge)
        do {
            try browser.wait(for: "document.getElementById('screen-result').hasAttribute('data-active')", timeout: 40, what: "the result screen")
        } catch {
            Issue.record("\(error); console: \(browser.consoleMessages)")
            throw error
        }
        let session = t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["a"]).json
        let result = session["result"] as? [String: Any]
        #expect(result?["outcome"] as? String == "passed", "\(result ?? [:])")
        #expect(try Self.text(browser, "result-title") == Self.catalogue("en")["resultPassed"])
        let envelopes = try Self.envelopes(browser)
        let events = envelopes.compactMap { ($0["data"] as? [String: Any])?["type"] as? String }
        for expected in ["session.started", "camera.started", "face.detected", "challenge.started", "challenge.passed", "session.completed"] {
            #expect(events.contains(expected), "\(events)")
        }
        #expect((envelopes.last?["data"] as? [String: Any])?["status"] as? String == "submitted")
        // Timing from the page's own resource entries: load to first answer, and capture length.
        let timing = try browser.evaluate("""
            (() => { const f = performance.getEntriesByType('resource').filter(e => e.name.endsWith('/v1/client/frames'));
                     return [f[0].responseEnd, f[0].startTime, f[f.length - 1].responseEnd, f.length]; })()
            """) as? [Double] ?? []
        if timing.count == 4 {
            print(String(format: "capture page e2e: first guidance answer %.0f ms after navigation; passed %.1f s after the first frame (%.0f frames)",
                         timing[0], (timing[2] - timing[1]) / 1000, timing[3]))
        }
    }
}
