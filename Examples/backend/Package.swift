// swift-tools-version:6.0
import PackageDescription

// A tenant backend's side of Vigil, as its own package: it depends on the `VigilVerifier` product
// by path, which proves the product builds for another package (no dlib, microhttpd or SQLite).
let package = Package(
    name: "VigilBackendExample",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "Vigil", path: "../..")],
    targets: [
        // VigilCore too: the verifier's answers are its types (VerdictPayload, WebhookEvent).
        .executableTarget(name: "vigil-backend-example", dependencies: [.product(name: "VigilVerifier", package: "Vigil"),
                                                                       .product(name: "VigilCore", package: "Vigil")],
                          path: "Sources/VigilBackendExample"),
    ],
    swiftLanguageModes: [.v6]
)
