import Foundation
import Testing
import VigilSDK

/// The WebView host's shared parts: the page URL, the injected script, the origin rule, and
/// what each envelope makes the host do.
struct WebViewBridgeTests {
    static func envelope(_ kind: String, _ data: [String: Any]? = nil, source: Any = "vigil", version: Any = 1) -> String {
        var object: [String: Any] = ["source": source, "version": version, "kind": kind]
        if let data { object["data"] = data }
        return String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    @Test func theCaptureURLCarriesTheTokenOnlyInTheFragmentAndRefusesOddIds() throws {
        let server = try #require(URL(string: "https://vigil.example/base/"))
        let url = try #require(WebViewBridge.captureURL(serverURL: server, sessionId: "ses_abc-1", token: "tok_XYZ-_9", autostart: true))
        #expect(url.absoluteString == "https://vigil.example/base/c/ses_abc-1?autostart=1#tok_XYZ-_9")
        #expect(WebViewBridge.captureURL(serverURL: server, sessionId: "ses_1", token: "t", autostart: false)?.absoluteString
                == "https://vigil.example/base/c/ses_1#t")
        #expect(WebViewBridge.captureURL(serverURL: server, sessionId: "ses_1", token: "t", autostart: true, locale: "pt-BR")?.absoluteString
                == "https://vigil.example/base/c/ses_1?autostart=1&locale=pt-BR#t")
        for (id, token) in [("../admin", "t"), ("ses_1", "a#b"), ("ses 1", "t"), ("", "t"), ("ses_1", ""), ("ses_1?x=1", "t")] {
            #expect(WebViewBridge.captureURL(serverURL: server, sessionId: id, token: token, autostart: true) == nil, "\(id) \(token)")
        }
    }

    @Test func onlyTheServersExactOriginCounts() throws {
        let server = try #require(URL(string: "https://vigil.example"))
        for same in ["https://vigil.example/c/ses_1", "https://VIGIL.example:443/x", "HTTPS://vigil.example"] {
            #expect(WebViewBridge.isServerOrigin(URL(string: same)!, server: server), "\(same)")
        }
        for other in ["http://vigil.example/c", "https://vigil.example:8443/", "https://vigil.example.evil.test/",
                      "https://evil.test/?https://vigil.example", "https://vigil.example@evil.test/", "https://user@vigil.example/",
                      "https://sub.vigil.example/", "file:///etc/passwd", "about:blank"] {
            #expect(!WebViewBridge.isServerOrigin(URL(string: other)!, server: server), "\(other)")
        }
        #expect(WebViewBridge.isServerOrigin(URL(string: "http://127.0.0.1:8080/c")!, server: URL(string: "http://127.0.0.1:8080")!))
        #expect(!WebViewBridge.isServerOrigin(URL(string: "http://127.0.0.1:8081/c")!, server: URL(string: "http://127.0.0.1:8080")!))
    }

    @Test func theUserScriptEmbedsOnlyAWellFormedDeviceId() {
        #expect(WebViewBridge.userScript(deviceId: "0123456789abcdef").contains("deviceId = \"0123456789abcdef\";"))
        #expect(WebViewBridge.userScript(deviceId: "\"; alert(1); \"").contains("deviceId = null;"))
        #expect(WebViewBridge.userScript(deviceId: nil).contains("deviceId = null;"))
    }

    @Test func submittedResultsAreReadAndCancelsOfThisSessionEndAsUserCancelled() {
        var flow = WebViewCaptureFlow(sessionId: "ses_1")
        #expect(flow.receive(Self.envelope("ready")) == .wait && flow.isReady)
        #expect(flow.receive(Self.envelope("event", ["type": "challenge.started", "index": 0, "kind": "turnLeft"])) == .wait)
        #expect(flow.lastEvent == "challenge.started")
        #expect(flow.receive(Self.envelope("complete", ["status": "submitted"])) == .readResult)
        #expect(flow.receive(Self.envelope("complete", ["status": "abandoned"])) == .end(.userCancelled))
        #expect(flow.receive(Self.envelope("cancel", ["session_id": "ses_1"])) == .end(.userCancelled))
        // Another session's cancel, and camelCase, are not this capture's.
        #expect(flow.receive(Self.envelope("cancel", ["session_id": "ses_2"])) == .wait)
        #expect(flow.receive(Self.envelope("cancel", ["sessionId": "ses_1"])) == .wait)
    }

    @Test func foreignMalformedAndUnknownMessagesAreDropped() {
        var flow = WebViewCaptureFlow(sessionId: "ses_1")
        let dropped = [Self.envelope("complete", ["status": "submitted"], source: "other"), Self.envelope("complete", ["status": "submitted"], version: 2),
                       Self.envelope("complete", ["status": "submitted"], version: "1"), Self.envelope("teleport"), Self.envelope("complete", ["status": "maybe"]),
                       "{", "null", "[]", String(repeating: " ", count: 20_000) + Self.envelope("ready")]
        for message in dropped { #expect(flow.receive(message) == .wait, "\(message.prefix(80))") }
        #expect(!flow.isReady)
    }

    @Test func errorScreensThatOfferARetryKeepThePageAndTheOthersMapToTypedErrors() {
        var flow = WebViewCaptureFlow(sessionId: "ses_1")
        let expected: [(String, WebViewCaptureFlow.Step)] = [
            ("camera_in_use", .wait), ("camera_timeout", .wait), ("network_lost", .wait),
            ("camera_denied", .end(.cameraPermissionDenied)), ("unsupported", .end(.unsupportedDevice)), ("no_camera", .end(.unsupportedDevice)),
            ("camera_failed", .end(.unsupportedDevice)), ("locked_out", .readResult), ("session_finished", .readResult),
            ("session_expired", .end(.sessionNotCompleted(status: "expired", message: "m"))),
            ("invalid_link", .end(.sessionNotCompleted(status: "invalid", message: "m"))), ("cancelled", .end(.userCancelled)),
            ("server", .end(.serverError("server: m"))),
        ]
        for (code, step) in expected { #expect(flow.receive(Self.envelope("error", ["code": code, "message": "m"])) == step, "\(code)") }
    }
}
