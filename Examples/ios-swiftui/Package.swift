// swift-tools-version:6.0
import PackageDescription

// The one-screen sample app's feature code, as a package on the `VigilSDK` product by path. The
// iOS app target (App/) adds this package in Xcode; `swift build` builds the platform-neutral
// part anywhere, which proves the SDK product builds for another package.
let package = Package(
    name: "VigilSampleApp",
    platforms: [.iOS(.v16), .macOS(.v13)],
    products: [.library(name: "VerifyFeature", targets: ["VerifyFeature"])],
    dependencies: [.package(name: "Vigil", path: "../..")],
    targets: [
        .target(name: "VerifyFeature", dependencies: [.product(name: "VigilSDK", package: "Vigil")]),
    ],
    swiftLanguageModes: [.v6]
)
