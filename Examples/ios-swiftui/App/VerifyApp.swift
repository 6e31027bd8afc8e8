// The app target's entry point (add it to an iOS app target in Xcode together with the
// VerifyFeature package; it is not part of the package build).
import SwiftUI
import VerifyFeature
import VigilSDK

@main struct VerifyApp: App {
    var body: some Scene {
        WindowGroup {
            VerifyScreen(model: VerificationModel(
                backend: HTTPVerificationBackend(baseURL: URL(string: "https://backend.example")!),
                config: VigilConfig(serverURL: URL(string: "https://vigil.example")!)))
        }
    }
}
