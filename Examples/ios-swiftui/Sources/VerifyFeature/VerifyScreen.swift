#if canImport(SwiftUI) && canImport(WebKit)
import SwiftUI
import VigilSDK

/// The sample's one screen: Verify, the capture page, then the backend's answer.
public struct VerifyScreen: View {
    @State private var model: VerificationModel
    @State private var host = WebViewCaptureHost(autostart: false)

    /// The screen for `model`.
    public init(model: VerificationModel) { _model = State(initialValue: model) }

    public var body: some View {
        content.task { await model.prepare(host: host) }
    }

    @ViewBuilder private var content: some View {
        switch model.phase {
        case .idle:
            Button("Verify") { Task { await model.verify(with: host) } }
                .buttonStyle(.borderedProminent)
        case .capturing:
            VigilCaptureView(host: host).ignoresSafeArea()
        case .finished(let passed, let message):
            VStack(spacing: 16) {
                Image(systemName: passed ? "checkmark.seal.fill" : "xmark.seal.fill").font(.largeTitle)
                Text(message)
                Button("Done") { model.reset() }
            }
        case .failed(let message):
            VStack(spacing: 16) {
                Text(message).multilineTextAlignment(.center)
                Button("Try again") { model.reset() }
            }
        }
    }
}
#endif
