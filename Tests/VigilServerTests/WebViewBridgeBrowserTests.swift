import Foundation
import Testing
import VigilSDK
import VigilTestSupport

/// The script `WebViewCaptureHost` injects, run in Chromium against the real capture page with
/// `window.webkit.messageHandlers.vigil` standing in for WebKit's handler: the page finds the
/// bridge, adopts the SDK's device id, and its envelopes drive `WebViewCaptureFlow`.
@Suite(.serialized) struct WebViewBridgeBrowserTests {
    static let deviceId = "0123456789abcdef0123456789abcdef"

    /// WebKit's handler as the page sees it: messages land in `window.__native`.
    static let webKit = """
        window.__native = [];
        window.webkit = { messageHandlers: { vigil: { postMessage: (m) => window.__native.push(m) } } };
        """

    func open(_ t: TestServer, _ id: String, _ token: String) throws -> HeadlessChromium {
        let browser = try HeadlessChromium(camera: nil)
        let server = try #require(URL(string: "http://127.0.0.1:\(t.port)"))
        let url = try #require(WebViewBridge.captureURL(serverURL: server, sessionId: id, token: token, autostart: true))
        try browser.open(url.absoluteString, beforeLoad: Self.webKit + WebViewBridge.userScript(deviceId: Self.deviceId))
        return browser
    }

    func steps(_ browser: HeadlessChromium, _ flow: inout WebViewCaptureFlow, from: Int = 0) throws -> [WebViewCaptureFlow.Step] {
        let posted = try browser.evaluate("window.__native") as? [Any] ?? []
        #expect(posted.allSatisfy { $0 is String })   // strings, as WebKit's handler receives them
        return posted.dropFirst(from).compactMap { $0 as? String }.map { flow.receive($0) }
    }

    @Test func thePageTalksToTheInjectedBridgeAndDestroyEndsTheCaptureAsCancelled() throws {
        let t = try TestServer()
        let (id, token) = t.createSession()
        let browser = try open(t, id, token)
        defer { browser.shutdown() }
        let frames = "performance.getEntriesByType('resource').filter(e => e.name.endsWith('/v1/client/frames')).length"
        try browser.wait(for: "\(frames) > 3", timeout: 20, what: "frames")
        var flow = WebViewCaptureFlow(sessionId: id)
        let before = try steps(browser, &flow)
        #expect(flow.isReady && before.allSatisfy { $0 == .wait }, "\(before)")
        #expect(try browser.evaluate("Object.isFrozen(window.VigilNative) && typeof window.VigilNative.getDeviceId") as? String == "function")
        // The signed result will name the SDK's device, the one `ssid` carries.
        var reported: String?
        for _ in 0..<50 where reported == nil {
            reported = (t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["a"]).json["risk"] as? [String: Any])?["deviceId"] as? String
            if reported == nil { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(reported == Self.deviceId)
        _ = try browser.evaluate(WebViewBridge.destroyCommand)
        try browser.wait(for: "window.__native.some((m) => m.includes('abandoned'))", timeout: 10, what: "complete")
        #expect(try steps(browser, &flow, from: before.count).last == .end(.userCancelled))
        #expect(try browser.evaluate("document.getElementById('video').srcObject === null") as? Bool == true)
    }

    /// What a host's `prewarm` preloads is what the page loads, and the server lets it be cached.
    @Test func thePreloadedAssetsAreThePagesOwnAndCacheable() throws {
        let t = try TestServer()
        let page = try CatalogueTests.resource("index.html")
        for locale in CatalogueTests.locales {
            let paths = WebViewBridge.assetPaths(locale: locale)
            #expect(paths.allSatisfy { WebViewBridge.preloadPage(locale: locale).contains("href=\"\($0)\"") })
            for path in paths {
                let response = t.request("GET", path)
                #expect(response.status == 200 && response.headers["cache-control"]?.contains("max-age") == true, "\(path)")
            }
        }
        #expect(WebViewBridge.assetPaths(locale: "en").prefix(2).allSatisfy { page.contains("\"\($0)\"") })
    }

    @Test func aDeniedCameraEndsTheCaptureWithItsTypedError() throws {
        let t = try TestServer()
        let (id, token) = t.createSession()
        let browser = try HeadlessChromium(camera: nil, grantCamera: false)
        defer { browser.shutdown() }
        try browser.setCameraPermission(origin: "http://127.0.0.1:\(t.port)", granted: false)
        // The app's language for a session created without one.
        let url = try #require(WebViewBridge.captureURL(serverURL: URL(string: "http://127.0.0.1:\(t.port)")!, sessionId: id, token: token,
                                                        autostart: true, locale: "fr"))
        try browser.open(url.absoluteString, beforeLoad: Self.webKit + WebViewBridge.userScript(deviceId: nil))
        try browser.wait(for: "window.__native.some((m) => m.includes('camera_denied'))", timeout: 20, what: "the error")
        var flow = WebViewCaptureFlow(sessionId: id)
        #expect(try steps(browser, &flow).last == .end(.cameraPermissionDenied))
        #expect(try CapturePageTests.text(browser, "error-title") == CapturePageTests.catalogue("fr")["error.camera_denied"])
    }
}
