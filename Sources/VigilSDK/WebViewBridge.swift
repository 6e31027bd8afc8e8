import Foundation
import VigilCore

/// What a WebView host injects into and sends to the hosted capture page (docs/webview.md),
/// kept apart from WebKit so every platform's host and the Linux tests share it.
public enum WebViewBridge {
    /// The script message handler's name (`window.webkit.messageHandlers.vigil`).
    public static let handlerName = "vigil"

    /// Run before tearing the page down: it stops the camera and timers and reports `abandoned`.
    public static let destroyCommand = "window.onVigilHostCommand && window.onVigilHostCommand('destroy')"

    /// The capture page for `sessionId`: the token in the fragment (never sent to the server),
    /// `autostart=1` when the app shows its own instructions, and the app's `locale` for a
    /// session created without one.
    public static func captureURL(serverURL: URL, sessionId: String, token: String, autostart: Bool, locale: String? = nil) -> URL? {
        guard var components = URLComponents(url: serverURL, resolvingAgainstBaseURL: false), !sessionId.isEmpty, !token.isEmpty,
              sessionId.utf8.allSatisfy({ $0.isIdentifierByte }), token.utf8.allSatisfy({ $0.isIdentifierByte }) else { return nil }
        components.path = (components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path) + "/c/\(sessionId)"
        let items = (autostart ? [URLQueryItem(name: "autostart", value: "1")] : [])
            + (locale.map { [URLQueryItem(name: "locale", value: $0)] } ?? [])
        components.queryItems = items.isEmpty ? nil : items
        components.fragment = token
        return components.url
    }

    /// The user script added at document start in the main frame: `window.VigilNative`, posting
    /// every envelope as a string to the `vigil` handler, and answering `getDeviceId()` with the
    /// SDK's id so the page reports the same device as `ssid`.
    public static func userScript(deviceId: String?) -> String {
        // Only an id the page and server accept; its alphabet needs no escaping in a JS string.
        let id = deviceId.flatMap { SessionRisk.isDeviceId($0) ? "\"\($0)\"" : nil } ?? "null"
        return """
            (function () {
              if (window.top !== window) return;
              var handlers = window.webkit && window.webkit.messageHandlers;
              if (!handlers || !handlers.\(handlerName)) return;
              var handler = handlers.\(handlerName), deviceId = \(id);
              var bridge = { postMessage: function (message) { handler.postMessage(String(message)); } };
              if (deviceId) bridge.getDeviceId = function () { return deviceId; };
              Object.defineProperty(window, "VigilNative", { value: Object.freeze(bridge), writable: false, configurable: false });
            })();
            """
    }

    /// The page's static assets (cacheable for five minutes), relative to the server.
    public static func assetPaths(locale: String) -> [String] {
        ["/c/assets/capture.css", "/c/assets/capture.js", "/c/assets/i18n-\(locale).json"]
    }

    /// A blank page that only preloads the assets, loaded with the server as base URL by a host's
    /// `prewarm`: the web view's process, connection and cache are ready before the capture.
    public static func preloadPage(locale: String) -> String {
        let links = zip(assetPaths(locale: locale), ["style", "script", "fetch"]).map { path, kind in
            "<link rel=\"preload\" href=\"\(path)\" as=\"\(kind)\"\(kind == "fetch" ? " crossorigin=\"anonymous\"" : "")>"
        }
        return "<!doctype html><meta charset=\"utf-8\">" + links.joined()
    }

    /// Whether `url` is on the server's origin (scheme, host and port): only that origin gets the
    /// camera and stays in the WebView; links elsewhere open in the system browser.
    public static func isServerOrigin(_ url: URL, server: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), scheme == server.scheme?.lowercased(),
              let host = url.host?.lowercased(), host == server.host?.lowercased(), url.user == nil, url.password == nil else { return false }
        let defaultPort = scheme == "https" ? 443 : 80
        return (url.port ?? defaultPort) == (server.port ?? defaultPort)
    }
}

private extension UInt8 {
    /// Letters, digits and `-_.:`: what session ids and tokens are made of.
    var isIdentifierByte: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self) || self == 0x2D || self == 0x5F
            || self == 0x2E || self == 0x3A
    }
}
