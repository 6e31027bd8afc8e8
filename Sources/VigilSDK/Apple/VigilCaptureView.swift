#if canImport(SwiftUI) && canImport(WebKit)
import SwiftUI
import WebKit

#if os(iOS)
/// Shows a `WebViewCaptureHost`'s page in SwiftUI.
public struct VigilCaptureView: UIViewRepresentable {
    private let host: WebViewCaptureHost

    /// A view of `host`'s web view.
    public init(host: WebViewCaptureHost) { self.host = host }

    public func makeUIView(context: Context) -> WKWebView { host.webView }
    public func updateUIView(_ view: WKWebView, context: Context) {}
}
#elseif os(macOS)
/// Shows a `WebViewCaptureHost`'s page in SwiftUI.
public struct VigilCaptureView: NSViewRepresentable {
    private let host: WebViewCaptureHost

    /// A view of `host`'s web view.
    public init(host: WebViewCaptureHost) { self.host = host }

    public func makeNSView(context: Context) -> WKWebView { host.webView }
    public func updateNSView(_ view: WKWebView, context: Context) {}
}
#endif
#endif
