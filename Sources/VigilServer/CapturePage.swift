import Foundation

/// The hosted capture page (`Resources/capture/index.html`), read once.
enum CapturePage {
    static let html: String = {
        guard let url = Bundle.module.url(forResource: "index", withExtension: "html", subdirectory: "capture"),
              let text = try? String(contentsOf: url, encoding: .utf8) else {
            return "<!doctype html><title>Vigil</title><p>The capture page is missing from this build.</p>"
        }
        return text
    }()
}
