#if canImport(WebKit)
import Foundation
import WebKit
#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

/// Shows the hosted capture page in a `WKWebView` (Apple platforms): the bridge injected at
/// document start, the camera granted to the Vigil origin only, inline playback, links to other
/// origins opened in the system browser, and `destroy` then handler removal on teardown. Place
/// `webView` on screen (or use `VigilCaptureView`) before starting the capture.
@MainActor public final class WebViewCaptureHost: NSObject, VigilCaptureHost {
    /// The web view showing the page; one capture at a time.
    public let webView: WKWebView
    /// Whether the page skips its intro screen (the app shows its own instructions, including
    /// the screen colours).
    public let autostart: Bool
    /// Gives up reading the result after this many seconds.
    public var pollTimeout: TimeInterval = 60

    /// What the capture loop waits on: page messages and what the delegates saw.
    private enum Input: Sendable {
        case message(String), securityFinding(VigilError), loadFailed(String), cancelled
    }

    private var serverURL: URL?
    private var inputs: AsyncStream<Input>.Continuation?

    /// A host with a fresh web view; `autostart` skips the page's intro.
    public init(autostart: Bool = false) {
        let configuration = WKWebViewConfiguration()
        #if os(iOS)
        configuration.allowsInlineMediaPlayback = true   // else the preview opens full screen over the prompts
        #endif
        configuration.mediaTypesRequiringUserActionForPlayback = []
        configuration.websiteDataStore = .nonPersistent()   // nothing of the session outlives the capture
        webView = WKWebView(frame: .zero, configuration: configuration)
        self.autostart = autostart
        super.init()
        webView.navigationDelegate = self
        webView.uiDelegate = self
    }

    public nonisolated func capture(_ session: VigilCaptureSession) async throws(VigilError) {
        try await run(session)
    }

    /// Starts the web view's process and fills its cache with the page's assets, from a blank
    /// page on the server's origin; a capture started meanwhile replaces it.
    public nonisolated func prewarm(serverURL: URL, locale: String) async {
        await load(preloadFrom: serverURL, locale: locale)
    }

    private func load(preloadFrom serverURL: URL, locale: String) {
        guard inputs == nil else { return }
        self.serverURL = serverURL
        webView.loadHTMLString(WebViewBridge.preloadPage(locale: locale), baseURL: serverURL)
    }

    private func run(_ session: VigilCaptureSession) async throws(VigilError) {
        guard inputs == nil else { throw .captureAlreadyActive }
        try session.checkSecurity()
        guard let url = WebViewBridge.captureURL(serverURL: session.serverURL, sessionId: session.sessionId, token: session.api.token,
                                                 autostart: autostart, locale: session.locale) else {
            throw .unexpected("the session id or token is not well formed")
        }
        let (stream, continuation) = AsyncStream.makeStream(of: Input.self, bufferingPolicy: .bufferingNewest(256))
        inputs = continuation
        serverURL = session.serverURL
        let controller = webView.configuration.userContentController
        controller.add(ScriptMessageSink(server: session.serverURL) { continuation.yield(.message($0)) }, name: WebViewBridge.handlerName)
        controller.addUserScript(WKUserScript(source: WebViewBridge.userScript(deviceId: session.deviceId), injectionTime: .atDocumentStart,
                                              forMainFrameOnly: true))
        // The device checks go on while the page runs; a finding ends it before another frame.
        let security = Task { @MainActor in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(session.securityInterval))
                do { try session.checkSecurity() } catch { continuation.yield(.securityFinding(error)) }
            }
        }
        webView.load(URLRequest(url: url))

        var flow = WebViewCaptureFlow(sessionId: session.sessionId)
        var ended: VigilError? = .userCancelled
        await withTaskCancellationHandler {
            loop: for await input in stream {
                switch input {
                case .message(let text):
                    switch flow.receive(text) {
                    case .wait: continue loop
                    case .readResult: ended = nil
                    case .end(let error): ended = error
                    }
                case .securityFinding(let error): ended = error
                case .loadFailed(let detail): ended = .networkError(detail)
                case .cancelled: ended = .userCancelled
                }
                break loop
            }
        } onCancel: {
            continuation.yield(.cancelled)
        }
        security.cancel()
        await tearDown()
        session.logger?.log("info", "capture page ended after \(flow.lastEvent ?? "no event")")
        if let ended { throw ended }
        try await session.waitForFinalStatus(timeout: pollTimeout)
    }

    /// `destroy` first (the page stops the camera and reports `abandoned`), then the handler and
    /// script go: the handler retains its sink.
    private func tearDown() async {
        // The callback form: the async one traps when the script's value is `undefined`.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            webView.evaluateJavaScript(WebViewBridge.destroyCommand) { _, _ in done.resume() }
        }
        let controller = webView.configuration.userContentController
        controller.removeScriptMessageHandler(forName: WebViewBridge.handlerName)
        controller.removeAllUserScripts()
        webView.stopLoading()
        webView.loadHTMLString("", baseURL: nil)
        inputs?.finish()
        inputs = nil
        serverURL = nil
    }

    private func isServer(_ origin: WKSecurityOrigin) -> Bool {
        guard let serverURL, let url = origin.url else { return false }
        return WebViewBridge.isServerOrigin(url, server: serverURL)
    }
}

/// Receives the page's envelopes (strings, main frame, Vigil origin only) for the host.
@MainActor private final class ScriptMessageSink: NSObject, WKScriptMessageHandler {
    private let server: URL
    private let deliver: (String) -> Void

    init(server: URL, deliver: @escaping (String) -> Void) {
        self.server = server
        self.deliver = deliver
    }

    func userContentController(_ controller: WKUserContentController, didReceive message: WKScriptMessage) {
        guard message.frameInfo.isMainFrame, let text = message.body as? String, let url = message.frameInfo.securityOrigin.url,
              WebViewBridge.isServerOrigin(url, server: server) else { return }
        deliver(text)
    }
}

extension WKSecurityOrigin {
    /// The origin as a URL (`port` 0 is the scheme's default).
    fileprivate var url: URL? { URL(string: "\(self.protocol)://\(host)\(port == 0 ? "" : ":\(port)")") }
}

extension WebViewCaptureHost: WKNavigationDelegate {
    /// The page stays on the Vigil origin; a link the person taps to elsewhere opens in the
    /// system browser; anything else (a redirect after the result, a script) is not followed.
    public func webView(_ webView: WKWebView, decidePolicyFor navigationAction: WKNavigationAction,
                        decisionHandler: @escaping @MainActor (WKNavigationActionPolicy) -> Void) {
        guard let url = navigationAction.request.url else { return decisionHandler(.cancel) }
        if url.absoluteString == "about:blank" { return decisionHandler(.allow) }   // the blank page of teardown
        guard let serverURL else { return decisionHandler(.cancel) }
        if WebViewBridge.isServerOrigin(url, server: serverURL) { return decisionHandler(.allow) }
        if navigationAction.navigationType == .linkActivated, url.scheme == "https" {
            #if canImport(UIKit)
            UIApplication.shared.open(url)
            #elseif canImport(AppKit)
            NSWorkspace.shared.open(url)
            #endif
        }
        decisionHandler(.cancel)
    }

    public func webView(_ webView: WKWebView, didFailProvisionalNavigation navigation: WKNavigation!, withError error: any Error) {
        inputs?.yield(.loadFailed("the capture page did not load: \(error.localizedDescription)"))
    }

    public func webViewWebContentProcessDidTerminate(_ webView: WKWebView) {
        inputs?.yield(.loadFailed("the capture page's process ended"))
    }
}

extension WebViewCaptureHost: WKUIDelegate {
    /// The camera for the Vigil page itself, nothing else; WebKit does not ask the person again
    /// once the app holds the camera permission.
    @available(iOS 15.0, macOS 12.0, *)
    public func webView(_ webView: WKWebView, requestMediaCapturePermissionFor origin: WKSecurityOrigin, initiatedByFrame frame: WKFrameInfo,
                        type: WKMediaCaptureType, decisionHandler: @escaping @MainActor (WKPermissionDecision) -> Void) {
        decisionHandler(frame.isMainFrame && type == .camera && isServer(origin) ? .grant : .deny)
    }
}
#endif
