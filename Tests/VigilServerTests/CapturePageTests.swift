import Foundation
import Synchronization
import Testing
import VigilCore
import VigilFace
import VigilHTTP
import VigilSynth
import VigilTestSupport

/// The capture page in Debian's headless Chromium with a fake camera, against a real server:
/// outcomes are read through the tenant API and the page's bridge envelopes through a
/// `window.VigilNative` injected at document start, as a native host does.
@Suite(.serialized) struct CapturePageTests {
    /// Records every envelope the page sends to the host, with the page time it was sent at.
    static let bridge = """
        window.__envelopes = [];
        window.VigilNative = { postMessage: (m) => window.__envelopes.push(Object.assign(JSON.parse(m), { at: performance.now() })) };
        """

    static var artefacts: URL {
        let url = URL(fileURLWithPath: ProcessInfo.processInfo.environment["VIGIL_ARTEFACTS"] ?? ".build/test-artefacts")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func catalogue(_ locale: String) throws -> [String: String] {
        try JSONDecoder().decode([String: String].self, from: Data(try CatalogueTests.resource("i18n-\(locale).json").utf8))
    }

    static func envelopes(_ browser: HeadlessChromium) throws -> [[String: Any]] {
        try browser.evaluate("window.__envelopes") as? [[String: Any]] ?? []
    }

    /// Start and end (page clock, ms) of every frame upload the page made.
    static func frameTimings(_ browser: HeadlessChromium) throws -> [[Double]] {
        try browser.evaluate("""
            performance.getEntriesByType('resource').filter(e => e.name.endsWith('/v1/client/frames')).map(e => [e.startTime, e.responseEnd])
            """) as? [[Double]] ?? []
    }

    /// `text` as a JavaScript string literal.
    static func jsString(_ text: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: [text]), as: UTF8.self).dropFirst().dropLast().description
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
        #expect(try Self.envelopes(browser).allSatisfy { Set($0.keys).isSubset(of: ["source", "version", "kind", "data", "at"]) })
        // The token left the address bar.
        #expect(try browser.evaluate("location.hash") as? String == "")
    }

    @Test func theHostsDestroyCommandStopsEverythingAndOtherCommandsAreIgnored() throws {
        let t = try TestServer()
        let (id, token) = t.createSession()
        let browser = try HeadlessChromium(camera: nil)
        defer { browser.shutdown() }
        // This host keeps a device id of its own, which the page adopts.
        try browser.open("http://127.0.0.1:\(t.port)/c/\(id)?autostart=1#\(token)", beforeLoad: Self.bridge + """
            window.VigilNative.getDeviceId = () => "ios-keychain-0001";
            window.VigilNative.setDeviceId = (id) => { window.__setDeviceId = id; };
            """)
        let frames = "performance.getEntriesByType('resource').filter(e => e.name.endsWith('/v1/client/frames')).length"
        try browser.wait(for: "\(frames) > 3", timeout: 20, what: "frames")
        _ = try browser.evaluate("window.onVigilHostCommand('reload'); window.onVigilHostCommand({})")
        Thread.sleep(forTimeInterval: 0.5)
        #expect(try browser.evaluate("document.getElementById('video').srcObject !== null") as? Bool == true)
        _ = try browser.evaluate("window.onVigilHostCommand('destroy')")
        #expect(try browser.evaluate("document.getElementById('video').srcObject === null") as? Bool == true)
        let sent = try browser.evaluate(frames) as? Int ?? 0
        Thread.sleep(forTimeInterval: 1)
        #expect(try browser.evaluate(frames) as? Int ?? 0 <= sent + 2)   // at most the two in flight
        let last = try Self.envelopes(browser).last
        #expect(last?["kind"] as? String == "complete" && (last?["data"] as? [String: Any])?["status"] as? String == "abandoned")
        #expect(try browser.evaluate("window.__setDeviceId") as? String == "ios-keychain-0001")
        #expect((t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["a"]).json["risk"] as? [String: Any])?["deviceId"] as? String
                == "ios-keychain-0001")
    }

    /// Without a host id the page makes one, keeps it, and reports the same one next time.
    @Test func withoutAHostDeviceIdThePageKeepsItsOwn() throws {
        let t = try TestServer()
        let browser = try HeadlessChromium(camera: nil)
        defer { browser.shutdown() }
        var seen: [String] = []
        for _ in 0..<2 {
            let (id, token) = t.createSession()
            try browser.open("http://127.0.0.1:\(t.port)/c/\(id)#\(token)", beforeLoad: Self.bridge)
            var deviceId: String?
            for _ in 0..<100 where deviceId == nil {
                Thread.sleep(forTimeInterval: 0.1)
                deviceId = (t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["a"]).json["risk"] as? [String: Any])?["deviceId"] as? String
            }
            seen.append(deviceId ?? "")
        }
        #expect(seen[0].hasPrefix("web-") && seen[0].count == 36 && seen[1] == seen[0], "\(seen)")
    }

    /// Each language's camera-denied screen says where the permission lives on the person's
    /// platform and offers to try again.
    @Test(arguments: ["en", "pt-BR", "es", "fr", "zh-Hans"])
    func theCameraDeniedScreenExplainsHowToAllowTheCameraInEachLanguage(_ locale: String) throws {
        let t = try TestServer()
        let strings = try Self.catalogue(locale)
        let browser = try HeadlessChromium(camera: nil)
        defer { browser.shutdown() }
        for (place, agent) in [("ios", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"),
                               ("android", "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36"),
                               ("app", "Mozilla/5.0 (Linux; Android 14; Pixel 8; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/126.0 Mobile Safari/537.36"),
                               ("desktop", "")] {
            let (id, token) = t.createSession(["locale": locale])
            let deny = "navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('denied', 'NotAllowedError'));"
                + (agent.isEmpty ? "" : "Object.defineProperty(navigator, 'userAgent', { value: '\(agent)' });")
            // No bridge here: a host app's bridge alone makes it the in-app case.
            try browser.open("http://127.0.0.1:\(t.port)/c/\(id)?autostart=1#\(token)", beforeLoad: deny)
            try browser.wait(for: "document.getElementById('screen-error').hasAttribute('data-active')", timeout: 20, what: "the error screen")
            #expect(try Self.text(browser, "error-title") == strings["error.camera_denied"])
            #expect(try Self.text(browser, "error-detail") == strings["help.camera_denied.\(place)"], "\(locale) \(place)")
            #expect(try browser.evaluate("document.getElementById('error-retry').hidden") as? Bool == false)
            #expect(try Self.text(browser, "error-retry") == strings["tryAgain"])
            if place == "ios" { try browser.screenshot().write(to: Self.artefacts.appendingPathComponent("capture-camera-denied-\(locale).png")) }
        }
    }

    /// What `inner` shows, at a fraction of the light: a dark room.
    struct DarkRoom<Inner: SyntheticCamera>: SyntheticCamera {
        var inner: Inner
        let exposure: Float
        mutating func frame(at timestampMs: Int, screen: ScreenState) -> PixelBuffer {
            var pixels = inner.frame(at: timestampMs, screen: screen)
            pixels.scale(by: exposure)
            return pixels
        }
    }

    /// Too dark a face first turns the screen around the oval white (a fill light); only when
    /// that does not help is the person asked for more light.
    @Test func aFaceTooDarkGetsTheFillLightBeforeBeingAskedForMoreLight() throws {
        let t = try TestServer()
        let (id, token) = t.createSession(["riskLevel": "low"])
        var room = DarkRoom(inner: SyntheticPerson(rig: try Self.rig(), light: .none, seed: 9), exposure: 0.25)
        let video = try Self.recording(&room, durationMs: 6000)
        defer { try? FileManager.default.removeItem(at: video) }
        let browser = try HeadlessChromium(camera: video)
        defer { browser.shutdown() }
        try browser.open("http://127.0.0.1:\(t.port)/c/\(id)?autostart=1#\(token)", beforeLoad: Self.bridge)
        let strings = try Self.catalogue("en")
        try browser.wait(for: "document.getElementById('guidance').textContent === \(Self.jsString(strings["fillLight"] ?? "?"))", timeout: 20,
                         what: "the fill light")
        #expect(try browser.evaluate("document.body.hasAttribute('data-fill-light')") as? Bool == true)
        #expect(try browser.evaluate("getComputedStyle(document.body).backgroundColor") as? String == "rgb(255, 255, 255)")
        try browser.screenshot().write(to: Self.artefacts.appendingPathComponent("capture-fill-light.png"))
        try browser.wait(for: "document.getElementById('guidance').textContent === \(Self.jsString(strings["feedback.tooDark"] ?? "?"))", timeout: 20,
                         what: "the request for more light")
        #expect(try browser.evaluate("document.body.hasAttribute('data-fill-light')") as? Bool == true)
    }

    /// A track named like a virtual camera is reported and signed; a refusing policy tells the
    /// person at once.
    @Test func aVirtualCameraIsReportedAndARefusingPolicyTellsThePerson() throws {
        let t = try TestServer()
        let (id, token) = t.createSession(["policy": ["count": 1, "refuseVirtualCamera": true]])
        let browser = try HeadlessChromium(camera: nil)
        defer { browser.shutdown() }
        let rename = "Object.defineProperty(MediaStreamTrack.prototype, 'label', { get() { return 'OBS Virtual Camera'; } });"
        try browser.open("http://127.0.0.1:\(t.port)/c/\(id)?autostart=1#\(token)", beforeLoad: Self.bridge + rename)
        try browser.wait(for: "document.getElementById('guidance').textContent === \(Self.jsString(try Self.catalogue("en")["virtualCameraRefused"] ?? "?"))",
                         timeout: 20, what: "the virtual-camera guidance")
        let risk = t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["a"]).json["risk"] as? [String: Any]
        #expect(risk?["virtualCamera"] as? Bool == true && (risk?["camera"] as? [String: Any])?["label"] as? String == "OBS Virtual Camera")
        #expect(try Self.envelopes(browser).contains { ($0["data"] as? [String: Any])?["type"] as? String == "camera.virtual" })
    }

    /// With two cameras the page offers a switch, which keeps the capture clock running forward;
    /// an infrared camera answering for "user" is passed over for a colour one.
    @Test func theSwitcherChangesCamerasAndAnInfraredCameraIsPassedOver() throws {
        let t = try TestServer()
        let (id, token) = t.createSession()
        let browser = try HeadlessChromium(camera: nil, cameras: 2)
        defer { browser.shutdown() }
        // The first fake device calls itself an infrared camera, in tracks and in the device list.
        let infrared = """
            const trackLabel = Object.getOwnPropertyDescriptor(MediaStreamTrack.prototype, 'label').get;
            Object.defineProperty(MediaStreamTrack.prototype, 'label', { get() { const l = trackLabel.call(this); return l.endsWith('0') ? 'Integrated IR Camera' : l; } });
            const deviceLabel = Object.getOwnPropertyDescriptor(MediaDeviceInfo.prototype, 'label').get;
            Object.defineProperty(MediaDeviceInfo.prototype, 'label', { get() { const l = deviceLabel.call(this); return l.endsWith('0') ? 'Integrated IR Camera' : l; } });
            """
        try browser.open("http://127.0.0.1:\(t.port)/c/\(id)?autostart=1#\(token)", beforeLoad: Self.bridge + Self.uploadLog + infrared)
        let uploads = "window.__uploads.length"
        try browser.wait(for: "\(uploads) > 3", timeout: 20, what: "frames")
        var camera = (t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["a"]).json["risk"] as? [String: Any])?["camera"] as? [String: Any]
        #expect(camera?["label"] as? String != "Integrated IR Camera" && camera?["label"] != nil, "\(camera ?? [:])")
        // Only one colour camera is left: no switcher.
        #expect(try browser.evaluate("document.getElementById('switch-camera').hidden") as? Bool == true)

        let plain = t.createSession()
        try browser.open("http://127.0.0.1:\(t.port)/c/\(plain.id)?autostart=1#\(plain.token)", beforeLoad: Self.bridge + Self.uploadLog)
        try browser.wait(for: "\(uploads) > 3 && !document.getElementById('switch-camera').hidden", timeout: 20, what: "frames and the switcher")
        let before = (t.request("GET", "/v1/sessions/\(plain.id)", bearer: t.apiKeys["a"]).json["risk"] as? [String: Any])?["camera"] as? [String: Any]
        _ = try browser.evaluate("window.__switchedAt = window.__uploads.length; document.getElementById('switch-camera').click()")
        try browser.wait(for: "\(uploads) > window.__switchedAt + 5", timeout: 20, what: "frames after the switch")
        for _ in 0..<50 {
            camera = (t.request("GET", "/v1/sessions/\(plain.id)", bearer: t.apiKeys["a"]).json["risk"] as? [String: Any])?["camera"] as? [String: Any]
            if camera?["label"] as? String != before?["label"] as? String { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(camera?["label"] as? String != before?["label"] as? String, "\(before ?? [:]) \(camera ?? [:])")
        let times = (try browser.evaluate("window.__uploads.map((u) => u.captureMs)") as? [Int]) ?? []
        #expect(zip(times.dropFirst(), times).allSatisfy { $0 > $1 }, "\(times)")
    }

    /// A camera another app holds, and none at all, as the browser reports them.
    @Test func aCameraInUseAndAMissingCameraEachHaveTheirScreen() throws {
        let strings = try Self.catalogue("en")
        let t = try TestServer()
        for (name, code) in [("NotReadableError", "camera_in_use"), ("NotFoundError", "no_camera")] {
            let (id, token) = t.createSession()
            let refuse = "navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('refused', '\(name)'));"
            let browser = try HeadlessChromium(camera: nil)
            defer { browser.shutdown() }
            try browser.open("http://127.0.0.1:\(t.port)/c/\(id)?autostart=1#\(token)", beforeLoad: Self.bridge + refuse)
            try browser.wait(for: "document.getElementById('screen-error').hasAttribute('data-active')", timeout: 20, what: "the error screen")
            let error = try Self.envelopes(browser).last { $0["kind"] as? String == "error" }
            #expect((error?["data"] as? [String: Any])?["code"] as? String == code)
            #expect(try Self.text(browser, "error-title") == strings["error.\(code)"])
            // A camera may free up, or be plugged in: both screens say so and offer to try again.
            #expect(try browser.evaluate("document.getElementById('error-retry').hidden") as? Bool == false)
            #expect(try Self.text(browser, "error-detail") == strings["help.\(code)"])
            guard code == "camera_in_use" else { continue }
            // Trying again reloads the page with its session: the camera is still busy, the link still valid.
            _ = try browser.evaluate("window.__before = true; document.getElementById('error-retry').click()")
            try browser.wait(for: "window.__before === undefined && window.__envelopes.some((e) => e.kind === 'error')", timeout: 20,
                             what: "the reloaded page's error")
            let again = try Self.envelopes(browser).last { $0["kind"] as? String == "error" }
            #expect((again?["data"] as? [String: Any])?["code"] as? String == "camera_in_use")
            #expect(try Self.envelopes(browser).first?["kind"] as? String == "ready")
        }
    }

    /// Where the tenant allows it, the intro offers to go on without the flashes; the capture
    /// then starts at once and the result says the flashes were declined.
    @Test func aPersonMayDeclineTheFlashesOnTheIntroWhenThePolicyAllows() throws {
        let t = try TestServer()
        let strict = t.createSession(["riskLevel": "medium"])
        let browser = try HeadlessChromium(camera: nil)
        defer { browser.shutdown() }
        try browser.open("http://127.0.0.1:\(t.port)/c/\(strict.id)#\(strict.token)", beforeLoad: Self.bridge)
        try browser.wait(for: "document.getElementById('screen-intro').hasAttribute('data-active')", timeout: 20, what: "the intro")
        #expect(try browser.evaluate("document.getElementById('no-flashes').hidden") as? Bool == true)

        let (id, token) = t.createSession(["policy": ["count": 2, "type": "both", "motionOnlyFallback": true]])
        try browser.open("http://127.0.0.1:\(t.port)/c/\(id)#\(token)", beforeLoad: Self.bridge)
        try browser.wait(for: "document.getElementById('screen-intro').hasAttribute('data-active')", timeout: 20, what: "the intro")
        #expect(try browser.evaluate("document.getElementById('no-flashes').hidden") as? Bool == false)
        #expect(try browser.evaluate("document.getElementById('no-flashes').textContent") as? String == Self.catalogue("en")["noFlashes"])
        _ = try browser.evaluate("document.getElementById('no-flashes').click()")
        let frames = "performance.getEntriesByType('resource').filter(e => e.name.endsWith('/v1/client/frames')).length"
        try browser.wait(for: "\(frames) > 3", timeout: 20, what: "frames")
        #expect(try Self.envelopes(browser).contains { ($0["data"] as? [String: Any])?["type"] as? String == "reflection.declined" })
        let risk = t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["a"]).json["risk"] as? [String: Any]
        #expect(risk?["reflectionDeclined"] as? Bool == true)
    }

    @Test func thePageReportsTheLocationWhenTheSessionAsksForIt() throws {
        let t = try TestServer()
        let (id, token) = t.createSession(["riskLevel": "low", "collectLocation": true])
        let browser = try HeadlessChromium(camera: nil)
        defer { browser.shutdown() }
        try browser.send("Browser.grantPermissions", ["permissions": ["geolocation"], "origin": "http://127.0.0.1:\(t.port)"], toPage: false)
        try browser.open("http://127.0.0.1:\(t.port)/c/\(id)?autostart=1#\(token)", beforeLoad: Self.bridge)
        try browser.send("Emulation.setGeolocationOverride", ["latitude": 48.8566, "longitude": 2.3522, "accuracy": 25])
        var location: [String: Any]?
        for _ in 0..<100 where location?["status"] as? String != "granted" {
            Thread.sleep(forTimeInterval: 0.1)
            location = (t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["a"]).json["risk"] as? [String: Any])?["location"] as? [String: Any]
        }
        #expect(location?["status"] as? String == "granted" && location?["latitude"] as? Double == 48.8566 && location?["accuracyMeters"] as? Double == 25)
        // The capture went on.
        #expect(try browser.evaluate("document.getElementById('screen-capture').hasAttribute('data-active')") as? Bool == true)
    }

    @Test func aBrandedPageFramedByAnAllowlistedOriginShowsTheTenantsLookAndPostsToItsParent() throws {
        let t = try TestServer()
        // The tenant's own page, on another origin, frames the capture page.
        var router = Router()
        let parent = Mutex("")
        router.add("GET", "/") { _ in HTTPResponse(status: 200, headers: [("Content-Type", "text/html")], body: Array(parent.withLock { $0 }.utf8)) }
        let host = try HTTPServer(configuration: .init(port: 0, threads: 1), router: router)
        defer { host.shutdown() }
        let origin = "http://127.0.0.1:\(host.port)"
        #expect(t.json("PUT", "/v1/branding", ["colors": ["accent": "#aa3300"], "texts": ["es": ["introTitle": "Hola desde Acme"]],
                                                "frameAncestors": [origin]]).status == 200)
        let (id, token) = t.createSession(["riskLevel": "low", "locale": "es"])
        parent.withLock {
            $0 = """
                <!doctype html><script>window.__messages = []; addEventListener("message", (e) => __messages.push({origin: e.origin, data: e.data}));</script>
                <iframe id="vigil" allow="camera" width="480" height="800" src="http://127.0.0.1:\(t.port)/c/\(id)#\(token)"></iframe>
                """
        }
        let browser = try HeadlessChromium(camera: nil)
        defer { browser.shutdown() }
        try browser.open(origin + "/")
        try browser.wait(for: "__messages.some((m) => JSON.parse(m.data).kind === 'ready')", timeout: 20, what: "the framed page's ready")
        let messages = try browser.evaluate("__messages") as? [[String: Any]] ?? []
        #expect(messages.allSatisfy { $0["origin"] as? String == "http://127.0.0.1:\(t.port)" })
        // Inside the frame: the tenant's title in the session's language, and its colour.
        let vigil = "http://127.0.0.1:\(t.port)/c/"
        #expect(try browser.evaluate("document.querySelector('#screen-intro .title').textContent", inFrameWithURLPrefix: vigil) as? String
                == "Hola desde Acme")
        #expect(try browser.evaluate("getComputedStyle(document.getElementById('start')).backgroundColor", inFrameWithURLPrefix: vigil) as? String
                == "rgb(170, 51, 0)")
        let shot = try browser.screenshot()
        try shot.write(to: Self.artefacts.appendingPathComponent("capture-branded-framed.png"))
        #expect(shot.count > 1000)
    }

    /// Each failure shows its own screen and `error` envelope.
    func errorScreen(_ t: TestServer, _ id: String, _ token: String, beforeLoad: String = "", after: (HeadlessChromium) throws -> Void = { _ in },
                     timeout: TimeInterval = 20) throws -> (title: String, code: String?) {
        let browser = try HeadlessChromium(camera: nil)
        defer { browser.shutdown() }
        try browser.open("http://127.0.0.1:\(t.port)/c/\(id)?autostart=1#\(token)", beforeLoad: Self.bridge + beforeLoad)
        try after(browser)
        try browser.wait(for: "document.getElementById('screen-error').hasAttribute('data-active')", timeout: timeout, what: "the error screen")
        let error = try Self.envelopes(browser).last { $0["kind"] as? String == "error" }
        return (try Self.text(browser, "error-title"), (error?["data"] as? [String: Any])?["code"] as? String)
    }

    @Test func anExpiredLinkAnUnsupportedBrowserAndALostNetworkEachHaveTheirScreen() throws {
        let strings = try Self.catalogue("en")
        let expiring = try TestServer(sessionLifetime: 0.3)
        let (id, token) = expiring.createSession()
        Thread.sleep(forTimeInterval: 0.5)
        var seen = try errorScreen(expiring, id, token)
        #expect(seen.title == strings["error.session_expired"] && seen.code == "session_expired")

        let t = try TestServer()
        let unsupported = t.createSession()
        seen = try errorScreen(t, unsupported.id, unsupported.token, beforeLoad: "Object.defineProperty(navigator, 'mediaDevices', { value: undefined });")
        #expect(seen.title == strings["error.unsupported"] && seen.code == "unsupported")

        let lost = t.createSession()
        seen = try errorScreen(t, lost.id, lost.token, after: { browser in
            try browser.wait(for: "document.getElementById('guidance').textContent.length > 0", timeout: 20, what: "guidance")
            t.server.shutdown()
        }, timeout: 40)
        #expect(seen.title == strings["error.network_lost"] && seen.code == "network_lost")
    }

    @Test func cancellingEndsTheSessionAndTellsTheHost() throws {
        let t = try TestServer()
        let (id, token) = t.createSession()
        let browser = try HeadlessChromium(camera: nil)
        defer { browser.shutdown() }
        try browser.open("http://127.0.0.1:\(t.port)/c/\(id)?autostart=1#\(token)", beforeLoad: Self.bridge)
        try browser.wait(for: "document.getElementById('guidance').textContent.length > 0", timeout: 20, what: "guidance")
        _ = try browser.evaluate("document.getElementById('cancel').click()")
        try browser.wait(for: "window.__envelopes.some((e) => e.kind === 'complete')", timeout: 10, what: "complete")
        let envelopes = try Self.envelopes(browser)
        let cancel = envelopes.first { $0["kind"] as? String == "cancel" }
        #expect((cancel?["data"] as? [String: Any])?["session_id"] as? String == id)
        #expect(((envelopes.last?["data"]) as? [String: Any])?["status"] as? String == "abandoned")
        #expect(try t.store.session(id: id, tenantId: t.tenantIds["a"]!)?.status == .cancelled)
    }

    @Test func withoutASessionLocaleThePageFollowsTheBrowsersLanguages() throws {
        let t = try TestServer()
        let (id, token) = t.createSession()
        let browser = try HeadlessChromium(camera: nil)
        defer { browser.shutdown() }
        try browser.open("http://127.0.0.1:\(t.port)/c/\(id)#\(token)",
                         beforeLoad: Self.bridge + "Object.defineProperty(navigator, 'languages', { value: ['de-DE', 'pt-PT', 'en'] });")
        try browser.wait(for: "document.getElementById('screen-intro').hasAttribute('data-active')", timeout: 20, what: "the intro")
        #expect(try browser.evaluate("document.documentElement.lang") as? String == "pt-BR")
        #expect(try browser.evaluate("document.getElementById('start').textContent") as? String == Self.catalogue("pt-BR")["start"])
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

    /// A node with no room for another session: the page says the service is busy, sends no
    /// challenge, and starts once a place frees up (the session holding it is cancelled).
    @Test func aSessionWaitingForAPlaceIsToldAndStartsWhenOneFrees() throws {
        let t = try TestServer(frameCapacity: 10)
        let occupant = try Occupant(t)
        let (id, token) = t.createSession()
        var person = SyntheticPerson(rig: try Self.rig(), light: .live(strength: 0.15), seed: 5)
        let video = try Self.recording(&person, durationMs: 6000)
        defer { try? FileManager.default.removeItem(at: video) }
        let browser = try HeadlessChromium(camera: video)
        defer { browser.shutdown() }
        try browser.open("http://127.0.0.1:\(t.port)/c/\(id)?autostart=1#\(token)", beforeLoad: Self.bridge)
        let busy = try #require(try Self.catalogue("en")["serverBusy"])
        let quoted = String(decoding: try JSONEncoder().encode(busy), as: UTF8.self)
        try browser.wait(for: "document.getElementById('prompt').textContent === \(quoted)", timeout: 30, what: "the busy prompt")
        try browser.screenshot().write(to: Self.artefacts.appendingPathComponent("capture-server-busy.png"))
        let before = try Self.envelopes(browser).compactMap { ($0["data"] as? [String: Any])?["type"] as? String }
        #expect(!before.contains("face.detected") && !before.contains("challenge.started"), "\(before)")

        #expect(occupant.release() == 200)
        try browser.wait(for: "window.__envelopes.some((e) => e.kind === 'event' && e.data.type === 'face.detected')", timeout: 20,
                         what: "the face, once admitted")
    }

    /// The recorded person of the browser tests. These tests prove the path from camera to
    /// verdict, not the error rates (the evaluation matrix measures those over every subject), so
    /// the subject is one whose motions read clearly: the rig warps a flat photo, and Grace
    /// Hopper's hat and glasses stay flat, so her 30-degree turn reads about 15 degrees, at the
    /// 12-degree threshold, and passed or not with where a loaded machine's frames fell.
    /// Obama's reads about 21.
    static func rig(scene: (width: Int, height: Int) = (640, 480), faceHeight: Double = 0.45) throws -> FaceRig {
        try FaceRig(photo: try Image(contentsOf: DeviceAPITests.fixtures.appendingPathComponent("obama.jpg")), name: "obama",
                    analyzer: try FaceAnalyzer(models: TestServer.models), width: scene.width, height: scene.height, faceHeight: faceHeight)
    }

    /// `durationMs` of what `camera` shows at `rate` as a Y4M file of the camera's frame size, or
    /// scaled to `size`; `prompt` is what the screen in front of it shows at each moment (a
    /// recording cannot see the real one).
    static func recording(_ camera: inout some SyntheticCamera, durationMs: Int, rate: FrameRate = FrameRate(frames: 10),
                          size: (width: Int, height: Int)? = nil,
                          prompt: (Int) -> (index: Int, kind: Motion, shownAtMs: Int)? = { _ in nil }) throws -> URL {
        var random = SynthRandom(seed: 11)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-e2e-\(UUID().uuidString).y4m")
        var writer: Y4MWriter?
        var screen = ScreenState()
        for index in 0... {
            let ms = rate.timestampMs(ofFrame: index)
            guard ms < durationMs else { break }
            screen.prompt = prompt(ms)
            var pixels = camera.frame(at: ms, screen: screen)
            if let size { pixels = pixels.resampled(width: size.width, height: size.height) }
            pixels.addNoise(sigma: 2, using: &random)
            if writer == nil { writer = try Y4MWriter(url: url, width: pixels.width, height: pixels.height, rate: rate) }
            try writer?.write(pixels.image())
        }
        try writer?.close()
        return url
    }

    /// Plays `video` as the camera on the session's page until the result screen shows; returns
    /// the tenant's view of the result and the browser (still open).
    static func capture(_ t: TestServer, _ id: String, _ token: String, video: URL, timeout: TimeInterval,
                        recordFailure: Bool = true, beforeLoad: String = "", log: CapturingLogger? = nil) throws -> (result: [String: Any], browser: HeadlessChromium) {
        let browser = try HeadlessChromium(camera: video)
        try browser.open("http://127.0.0.1:\(t.port)/c/\(id)?autostart=1#\(token)", beforeLoad: bridge + beforeLoad)
        do {
            // A failed attempt's retry screen ends the wait too: the recording is made for one plan.
            try browser.wait(for: "['screen-result', 'screen-retry'].some((s) => document.getElementById(s).hasAttribute('data-active'))",
                             timeout: timeout, what: "the result screen")
            if try browser.evaluate("document.getElementById('screen-retry').hasAttribute('data-active')") as? Bool == true {
                throw HeadlessChromium.Failure.protocolError("the attempt failed (retry screen)")
            }
        } catch {
            let shown = (try? browser.evaluate("document.querySelector('.screen[data-active]').innerText")) ?? "?"
            let events = ((try? envelopes(browser)) ?? []).map { "\($0["kind"] ?? "") \($0["data"] ?? "")" }
            // The engine's own account of the attempt, from the store.
            let state = (try? t.store.session(id: id, tenantId: t.tenantIds["a"]!)?.engineState).flatMap { $0 }.map { String(decoding: $0, as: UTF8.self) }
            let challenges = state?.components(separatedBy: "\"challenges\":").dropFirst().first?.prefix(600) ?? ""
            // With the upload log: when each frame was captured, to tell a slow feed from a missed motion.
            let uploads = (try? browser.evaluate("window.__uploads ? window.__uploads.map((u) => u.captureMs).join(' ') : ''")) as? String ?? ""
            // Why each failed attempt failed, as the server logged it.
            let attempts = log?.logged.filter { $0.event == "attempt_failed" }.map { "\($0.fields)" } ?? []
            let report = "\(error); screen: \(shown); envelopes: \(events); engine: \(challenges); failed attempts: \(attempts); "
                + "uploads: \(uploads); console: \(browser.consoleMessages)"
            if recordFailure { Issue.record(Comment(rawValue: report)) } else { print("capture failed: \(report)") }
            browser.shutdown()
            throw error
        }
        let result = t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["a"]).json["result"] as? [String: Any] ?? [:]
        return (result, browser)
    }

    /// `low` draws two motions in a random order; the recording is made for this session's plan
    /// (read from the store, as a person reads the prompts), each motion after its prompt has
    /// surely appeared (4.5 s, like the one-motion test): margins a recording needs and a person
    /// reacting live does not. Each prompt
    /// shows on the recorded screen for half a second only: the person starts the motion on seeing
    /// it, and does not do it again (once the server has moved on, a repeat is a motion nobody
    /// asked for). The second prompt comes after the slowest first motion (reaction 0.9 s, motion
    /// 2 s), the settling, the plan's hold and two seconds of margin.
    @Test func aCooperatingPersonPassesALowSessionInTheBrowser() throws {
        // A recording's timing against a loaded machine (the whole suite runs beside it) is not
        // exact, and live sessions have a measured BPCER: a second person may try once.
        do {
            try lowSession(retrying: true)
        } catch {
            try lowSession(retrying: false)
        }
    }

    func lowSession(retrying: Bool) throws {
        let log = CapturingLogger()
        let t = try TestServer(logger: log)
        let (id, token) = t.createSession(["riskLevel": "low"])
        let state = try #require(try t.store.session(id: id, tenantId: t.tenantIds["a"]!)?.engineState)
        let engine = try #require(try JSONSerialization.jsonObject(with: Data(state)) as? [String: Any])
        let plan = try #require(((engine["runner"] as? [String: Any])?["session"] as? [String: Any])?["plan"] as? [String: Any])
        let motions = (plan["motions"] as? [String] ?? []).compactMap(Motion.init(rawValue:))
        let holds = plan["holdMs"] as? [Int] ?? []
        try #require(motions.count == 2 && holds.count == 2)
        let first = 4500, second = first + 2900 + 300 + holds[1] + 2000
        var person = SyntheticPerson(rig: try Self.rig(), light: .live(strength: 0.15), seed: retrying ? 6 : 7)
        let video = try Self.recording(&person, durationMs: second + 8000) { ms in
            (second..<(second + 500)).contains(ms) ? (1, motions[1], second) : (first..<(first + 500)).contains(ms) ? (0, motions[0], first) : nil
        }
        defer { try? FileManager.default.removeItem(at: video) }
        let (result, browser) = try Self.capture(t, id, token, video: video, timeout: 60, recordFailure: !retrying, beforeLoad: Self.uploadLog, log: log)
        defer { browser.shutdown() }
        #expect(result["outcome"] as? String == "passed", "\(motions) \(holds) \(result)")
        let frames = try Self.frameTimings(browser)
        if let firstFrame = frames.first, let last = frames.last {
            print(String(format: "capture page e2e, low (%@ then %@): passed %.1f s after the first frame", motions[0].rawValue, motions[1].rawValue,
                         (last[1] - firstFrame[0]) / 1000))
        }
    }

    /// A test-only camera injection (exactly the attack a real page cannot tell from a camera,
    /// so it lives here and never in the product): `getUserMedia` answers a canvas stream, and
    /// `__feed(jpegBase64)` draws the next frame and returns what the screen shows now.
    static let injectedCamera = """
        (() => {
          const canvas = document.createElement("canvas");
          canvas.width = 640; canvas.height = 480;
          const context = canvas.getContext("2d");
          navigator.mediaDevices.getUserMedia = async () => canvas.captureStream(30);
          window.__feed = async (jpeg) => {
            const bytes = Uint8Array.from(atob(jpeg), (c) => c.charCodeAt(0));
            context.drawImage(await createImageBitmap(new Blob([bytes], { type: "image/jpeg" })), 0, 0);
            const started = window.__envelopes.filter((e) => e.kind === "event" && e.data.type === "challenge.started").pop();
            const cue = document.getElementById("cue");
            const flash = document.getElementById("flash");
            return {
              now: performance.now(),
              challenge: started && cue && cue.dataset.kind === started.data.kind ? { index: started.data.index, kind: started.data.kind, at: started.at } : null,
              flash: flash && flash.hasAttribute("data-active") ? getComputedStyle(flash).backgroundColor : null,
            };
          };
        })();
        """

    /// The synthetic person rendered live in answer to what the page shows (prompts and
    /// flashes), through the injected camera, on the default `low` policy: the measure of the
    /// page's "passes in 8 s" budget, which a fixed recording cannot show.
    @Test func aPersonReactingLiveToThePagePassesLow() throws {
        let t = try TestServer()
        let (id, token) = t.createSession(["riskLevel": "low"])
        let browser = try HeadlessChromium(camera: nil)
        defer { browser.shutdown() }
        try browser.open("http://127.0.0.1:\(t.port)/c/\(id)?autostart=1#\(token)", beforeLoad: Self.bridge + Self.injectedCamera)
        try browser.wait(for: "typeof window.__feed === 'function' && document.getElementById('screen-capture').hasAttribute('data-active')",
                         timeout: 20, what: "the capture screen")
        var person = SyntheticPerson(rig: try Self.rig(), light: .live(strength: 0.15), seed: 8)
        var random = SynthRandom(seed: 12)
        var screen = ScreenState()
        var pageStart: Double?
        let clock = ContinuousClock(), start = clock.now
        let done = "['screen-result', 'screen-error'].some((s) => document.getElementById(s).hasAttribute('data-active'))"
        while clock.now - start < .seconds(60) {   // a second attempt may follow a failed one
            let tick = clock.now
            let ms = Int((tick - start) / .milliseconds(1))
            var pixels = person.frame(at: ms, screen: screen)
            pixels.addNoise(sigma: 2, using: &random)
            let jpeg = Data(pixels.image().jpegData(quality: 90)).base64EncodedString()
            let shown = try browser.evaluate("__feed('\(jpeg)')") as? [String: Any] ?? [:]
            let now = shown["now"] as? Double ?? 0
            if pageStart == nil { pageStart = now - Double(ms) }
            if let c = shown["challenge"] as? [String: Any], let index = c["index"] as? Int, let kind = (c["kind"] as? String).flatMap(Motion.init(rawValue:)),
               let at = c["at"] as? Double {
                if screen.prompt?.index != index { screen.prompt = (index, kind, Int(at - pageStart!)) }
            } else {
                screen.prompt = nil
            }
            screen.color = Self.rgb(shown["flash"] as? String) ?? (1, 1, 1)
            if try browser.evaluate(done) as? Bool == true { break }
            // A failed attempt shows its feedback and waits: the person tries again.
            if try browser.evaluate("document.getElementById('screen-retry').hasAttribute('data-active')") as? Bool == true {
                let kinds = try Self.envelopes(browser).compactMap { ($0["data"] as? [String: Any])?["kind"] as? String }
                print("capture page e2e, live person at low: attempt failed (\(try Self.text(browser, "retry-feedback")); challenges \(kinds)), trying again")
                _ = try browser.evaluate("document.getElementById('retry').click()")
                screen = ScreenState()
            }
            Thread.sleep(until: Date().addingTimeInterval(max(0, 0.1 - Double((clock.now - tick) / .milliseconds(1)) / 1000)))
        }
        let result = t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["a"]).json["result"] as? [String: Any] ?? [:]
        #expect(result["outcome"] as? String == "passed", "\(result)")
        let frames = try Self.frameTimings(browser)
        let envelopes = try Self.envelopes(browser)
        let at = { (type: String) in envelopes.first { ($0["data"] as? [String: Any])?["type"] as? String == type }?["at"] as? Double }
        if let first = frames.first, let last = frames.last, let face = at("face.detected"), let challenge = at("challenge.started") {
            print(String(format: "capture page e2e, live person at low: first challenge %.0f ms after the face; passed %.1f s after the first frame "
                         + "(attempt %@)", challenge - face, (last[1] - first[0]) / 1000, "\(result["attempt"] ?? "?")"))
        }
    }

    /// `rgb(r, g, b)` as 0...1 channels.
    static func rgb(_ css: String?) -> (red: Double, green: Double, blue: Double)? {
        guard let css, css.hasPrefix("rgb") else { return nil }
        let parts = css.drop { $0 != "(" }.dropFirst().prefix { $0 != ")" }.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        return parts.count >= 3 ? (parts[0] / 255, parts[1] / 255, parts[2] / 255) : nil
    }

    @Test(arguments: [FrameRate(frames: 5), FrameRate(frames: 10)])
    func aPhotoMovedInFrontOfTheCameraFailsAtLow(_ rate: FrameRate) throws {
        let t = try TestServer()
        let (id, token) = t.createSession(["policy": ["count": 2, "type": "motion", "maxAttempts": 1]])   // `low`, one attempt
        var photo = PhotoAttack(rig: try Self.rig(), medium: .print, seed: 3)
        let video = try Self.recording(&photo, durationMs: 20_000, rate: rate)
        defer { try? FileManager.default.removeItem(at: video) }
        let (result, browser) = try Self.capture(t, id, token, video: video, timeout: 60)
        defer { browser.shutdown() }
        #expect(result["outcome"] as? String == "failed" && result["lockedOut"] as? Bool == true, "\(result)")
        #expect(try Self.text(browser, "result-title") == Self.catalogue("en")["error.locked_out"])
    }

    @Test(arguments: [FrameRate(frames: 5), FrameRate(frames: 10)])
    func aReplayedVideoOfEveryMotionFailsAtMedium(_ rate: FrameRate) throws {
        let t = try TestServer()
        let (id, token) = t.createSession(["policy": ["count": 2, "type": "both", "maxAttempts": 1]])   // `medium`, one attempt
        var recording = SyntheticPerson(rig: try Self.rig(), behaviour: .loop, light: .none, seed: 4)
        let video = try Self.recording(&recording, durationMs: 20_000, rate: rate)
        defer { try? FileManager.default.removeItem(at: video) }
        let (result, browser) = try Self.capture(t, id, token, video: video, timeout: 60)
        defer { browser.shutdown() }
        #expect(result["outcome"] as? String == "failed", "\(result)")
    }

    /// Records every frame upload's capture time and a fingerprint of its bytes (test-only: it
    /// wraps the page's `fetch`).
    static let uploadLog = """
        window.__uploads = [];
        const __fetch = window.fetch;
        window.fetch = async (url, init) => {
          if (String(url).endsWith("/v1/client/frames") && init && init.body instanceof Blob) {
            const bytes = new Uint8Array(await init.body.arrayBuffer());
            let h = 0x811c9dc5;
            for (let i = 0; i < bytes.length; i += 1) h = Math.imul(h ^ bytes[i], 0x01000193);
            window.__uploads.push({ captureMs: Number(init.headers["Vigil-Capture-Time"]), hash: h >>> 0, size: bytes.length,
                                    width: document.getElementById("canvas").width, height: document.getElementById("canvas").height });
          }
          return __fetch(url, init);
        };
        """

    /// One camera of the browser matrix: its rate and size, the scene's frame size before the
    /// camera's scaling, and the motion the one-motion policy asks for.
    struct Camera: CustomTestStringConvertible, Sendable {
        let rate: FrameRate, width: Int, height: Int, motion: Motion
        var testDescription: String { "\(rate) \(width)x\(height) \(motion.rawValue)" }
        /// Rendered at half the camera's size (or 640x480) and scaled up to it, as a camera would deliver it.
        var sceneSize: (width: Int, height: Int) { width == 640 ? (640, 480) : (width / 2, height / 2) }
    }

    /// A person who does what is asked passes through the real page with the fake camera at its
    /// declared rate: a webcam in a dim room (5 and 7.5 fps), a phone in portrait and a 720p
    /// laptop camera. The page uploads each camera frame at most once, with capture times that
    /// only go forward and never faster than the camera, scaled keeping the aspect ratio.
    @Test(arguments: [
        Camera(rate: FrameRate(frames: 5), width: 640, height: 480, motion: .blink),
        Camera(rate: FrameRate(frames: 15, per: 2), width: 640, height: 480, motion: .turnRight),
        Camera(rate: FrameRate(frames: 5), width: 720, height: 1280, motion: .nod),
        Camera(rate: FrameRate(frames: 15, per: 2), width: 1280, height: 720, motion: .mouthOpen),
        Camera(rate: FrameRate(frames: 30), width: 1280, height: 720, motion: .shake),
    ])
    func aCooperatingPersonPassesAtLowFrameRatesAndInEveryOrientation(_ camera: Camera) throws {
        // A recording cannot wait for its prompt, which comes later on a loaded machine (the
        // whole suite runs beside it): a second person may try once, and the first failure is
        // printed, not hidden.
        do {
            try oneMotionSession(camera, retrying: true)
        } catch {
            try oneMotionSession(camera, retrying: false)
        }
    }

    func oneMotionSession(_ camera: Camera, retrying: Bool) throws {
        let t = try TestServer()
        let (id, token) = t.createSession(["policy": ["motions": [camera.motion.rawValue], "count": 1, "type": "motion"]])
        let scene = camera.sceneSize
        let rig = try Self.rig(scene: scene, faceHeight: scene.height > scene.width ? 0.3 : 0.45)
        var person = SyntheticPerson(rig: rig, light: .live(strength: 0.15), seed: 5)
        // The prompt stays on the recorded screen, as it does on the page until the server moves
        // on, so the person tries again when a try was not seen (a recording cannot see the page).
        let video = try Self.recording(&person, durationMs: 16_000, rate: camera.rate, size: (camera.width, camera.height)) { ms in
            (4500..<9000).contains(ms) ? (0, camera.motion, 4500) : nil
        }
        defer { try? FileManager.default.removeItem(at: video) }
        let (result, browser) = try Self.capture(t, id, token, video: video, timeout: 40, recordFailure: !retrying, beforeLoad: Self.uploadLog)
        defer { browser.shutdown() }
        #expect(result["outcome"] as? String == "passed", "\(camera.testDescription): \(result)")
        let uploads = try browser.evaluate("window.__uploads") as? [[String: Any]] ?? []
        let times = uploads.compactMap { $0["captureMs"] as? Int }
        let hashes = uploads.compactMap { $0["hash"] as? Int }
        #expect(times.count == uploads.count && uploads.count > 10)
        #expect(Set(hashes).count == hashes.count, "the page uploaded the same picture twice")
        let intervals = zip(times.dropFirst(), times).map { $0 - $1 }
        let cameraInterval = 1000 / camera.rate.perSecond
        #expect(intervals.allSatisfy { Double($0) >= 0.75 * min(cameraInterval, 100) }, "\(intervals)")
        // The analysis size: the shorter side 480, the camera's aspect ratio kept.
        let scale = 480 / Double(min(camera.width, camera.height))
        let expected = (Int((Double(camera.width) * scale).rounded()), Int((Double(camera.height) * scale).rounded()))
        #expect(uploads.allSatisfy { $0["width"] as? Int == expected.0 && $0["height"] as? Int == expected.1 },
                "\(Set(uploads.map { "\($0["width"] ?? "?")x\($0["height"] ?? "?")" }))")
        let checks = result["checks"] as? [String: Any]
        #expect((checks?["frameTiming"] as? [String: Any])?["passed"] as? Bool == true, "\(checks ?? [:])")
        print(String(format: "capture page e2e, %@: passed with %d uploads, median interval %d ms", camera.testDescription, uploads.count,
                     intervals.sorted()[intervals.count / 2]))
    }

    @Test func aCooperatingPersonOnAOneMotionPolicyPassesInTheBrowser() throws {
        let t = try TestServer()
        let (id, token) = t.createSession(["policy": ["motions": ["turnLeft"], "count": 1, "type": "motion"]])
        // The person rests until the prompt has surely appeared (baseline and hold take at most
        // 2 s of capture; the camera starts a little before the capture clock), turns, and rests.
        var person = SyntheticPerson(rig: try Self.rig(), light: .live(strength: 0.15), seed: 5)
        let video = try Self.recording(&person, durationMs: 16_000) { ms in (4500..<5000).contains(ms) ? (0, .turnLeft, 4500) : nil }
        defer { try? FileManager.default.removeItem(at: video) }
        let (result, browser) = try Self.capture(t, id, token, video: video, timeout: 40)
        defer { browser.shutdown() }
        #expect(result["outcome"] as? String == "passed", "\(result)")
        #expect(try Self.text(browser, "result-title") == Self.catalogue("en")["resultPassed"])
        let envelopes = try Self.envelopes(browser)
        let events = envelopes.compactMap { ($0["data"] as? [String: Any])?["type"] as? String }
        for expected in ["session.started", "camera.started", "face.detected", "challenge.started", "challenge.passed", "session.completed"] {
            #expect(events.contains(expected), "\(events)")
        }
        #expect((envelopes.last?["data"] as? [String: Any])?["status"] as? String == "submitted")
        // Timing on the page's clock: load to the first answer, face to the first challenge, and
        // the capture's length (reported; tests do not assert timings).
        let frames = try Self.frameTimings(browser)
        let at = { (type: String) in envelopes.first { ($0["data"] as? [String: Any])?["type"] as? String == type }?["at"] as? Double }
        if let first = frames.first, let last = frames.last, let face = at("face.detected"), let challenge = at("challenge.started") {
            print(String(format: "capture page e2e: first guidance answer %.0f ms after navigation; first challenge %.0f ms after the face; "
                         + "passed %.1f s after the first frame (%d frames)", first[1], challenge - face, (last[1] - first[0]) / 1000, frames.count))
        }
    }
}
