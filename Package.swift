// swift-tools-version:6.0
import PackageDescription

// dlib is mostly header templates: unoptimised, one HOG pass takes seconds, so the shim is built
// with -O2 in debug too. Only CDlibFace carries unsafeFlags; VigilCore and VigilCrypto never do.
let dlibOptimised: [CXXSetting] = [.unsafeFlags(["-O2"], .when(configuration: .debug))]

let package = Package(
    name: "Vigil",
    products: [
        .executable(name: "vigil", targets: ["vigil"]),
        .executable(name: "vigil-bench", targets: ["VigilBench"]),
        .executable(name: "vigil-fuzz", targets: ["VigilFuzz"]),
        .library(name: "VigilCore", targets: ["VigilCore"]),
        .library(name: "VigilFace", targets: ["VigilFace"]),
        .library(name: "VigilLiveness", targets: ["VigilLiveness"]),
        .library(name: "VigilDocument", targets: ["VigilDocument"]),
        .library(name: "VigilCrypto", targets: ["VigilCrypto"]),
        .library(name: "VigilHTTP", targets: ["VigilHTTP"]),
        .library(name: "VigilStore", targets: ["VigilStore"]),
        // The two products app and backend developers depend on: no dlib, microhttpd or SQLite
        // in their graph, no unsafe flags.
        .library(name: "VigilVerifier", targets: ["VigilVerifier"]),
        .library(name: "VigilSDK", targets: ["VigilSDK"]),
    ],
    targets: [
        .target(name: "VigilCore"),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .target(name: "VigilStore", dependencies: ["VigilCore", "VigilCrypto", "CSQLite", "CPostgres"]),
        .target(name: "CMicroHTTPD", linkerSettings: [.linkedLibrary("microhttpd")]),
        .target(name: "VigilHTTP", dependencies: ["CMicroHTTPD", "VigilCore"]),
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("curl")]),
        .target(name: "VigilCrypto", dependencies: ["VigilCore", .target(name: "CSodium", condition: .when(platforms: [.linux]))]),
        .target(name: "VigilVerifier", dependencies: ["VigilCore", "VigilCrypto"]),
        .target(name: "VigilSDK", dependencies: ["VigilCore"]),
        .target(
            name: "CDlibFace",
            cxxSettings: dlibOptimised + [.define("DLIB_NO_GUI_SUPPORT")],
            linkerSettings: [.linkedLibrary("dlib"), .linkedLibrary("blas"), .linkedLibrary("lapack"), .linkedLibrary("m"),
                            .linkedLibrary("jpeg"), .linkedLibrary("png")]
        ),
        // LiteRT's C runtime (from the ai-edge-litert wheel, no header shipped), opened with dlopen.
        .target(name: "CLiteRT", linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]),
        .target(name: "VigilFace", dependencies: ["CDlibFace", "CLiteRT", "VigilCore"]),
        .target(name: "VigilLiveness", dependencies: ["VigilCore", "VigilFace"]),
        // Identity documents: the machine-readable zone (ICAO 9303), beside VigilFace.
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),
        .systemLibrary(name: "CTesseract", pkgConfig: "tesseract", providers: [.apt(["libtesseract-dev"])]),
        // Its character matching loops are far too slow unoptimised, as VigilSynth's are.
        .target(name: "VigilDocument", dependencies: ["VigilCore", "VigilFace", "CFreeType", "CTesseract"],
                swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        // Rendering loops are far too slow unoptimised; VigilSynth is test and tooling code, never a
        // dependency of the server or SDK products.
        .target(name: "VigilSynth", dependencies: ["VigilCore", "VigilFace", "VigilLiveness", "VigilDocument"],
                swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        // The synthetic person as an SDK frame source: joins tooling to the SDK protocol, so neither depends on the other.
        .target(name: "VigilSynthCapture", dependencies: ["VigilCore", "VigilFace", "VigilSynth", "VigilSDK"]),
        .target(name: "VigilServer", dependencies: ["VigilCore", "VigilCrypto", "VigilFace", "VigilLiveness", "VigilDocument", "VigilStore", "VigilHTTP",
                                                     "CCurl"],
                resources: [.copy("Resources/capture")]),
        .executableTarget(name: "vigil", dependencies: ["VigilCore", "VigilFace", "VigilLiveness", "VigilDocument", "VigilSynth", "VigilServer", "VigilStore", "VigilSDK",
                                                      "VigilSynthCapture"]),
        .executableTarget(name: "VigilBench", dependencies: ["VigilCore", "VigilFace", "VigilLiveness"]),
        // Test tooling: its raw HTTP client is the tests' own.
        .executableTarget(name: "VigilFuzz", dependencies: ["VigilCore", "VigilCrypto", "VigilDocument", "VigilFace", "VigilHTTP", "VigilServer", "VigilStore", "VigilVerifier",
                                                           "VigilTestSupport"]),
        .testTarget(name: "VigilCoreTests", dependencies: ["VigilCore"]),
        .testTarget(name: "VigilSDKTests", dependencies: ["VigilSDK", "VigilTestSupport"]),
        .testTarget(name: "VigilVerifierTests", dependencies: ["VigilVerifier", "VigilCrypto", "VigilCore"]),
        .testTarget(name: "VigilCryptoTests", dependencies: ["VigilCrypto", "VigilCore"]),
        .target(name: "VigilTestSupport", dependencies: ["CPostgres"], path: "Tests/VigilTestSupport"),
        .testTarget(name: "VigilHTTPTests", dependencies: ["VigilHTTP", "VigilTestSupport"]),
        .testTarget(name: "VigilStoreTests", dependencies: ["VigilStore", "VigilCore", "VigilTestSupport"]),
        .testTarget(name: "VigilServerTests", dependencies: ["VigilServer", "VigilStore", "VigilCrypto", "VigilCore", "VigilFace", "VigilSynth",
                                                           "VigilHTTP", "VigilTestSupport", "VigilSDK", "VigilVerifier", "VigilSynthCapture"]),
        .testTarget(name: "VigilFaceTests", dependencies: ["VigilFace", "VigilCore", "VigilTestSupport"]),
        .testTarget(name: "VigilLivenessTests", dependencies: ["VigilLiveness", "VigilCore"]),
        .testTarget(name: "VigilDocumentTests", dependencies: ["VigilDocument", "VigilSynth"]),
        .testTarget(name: "VigilSynthTests", dependencies: ["VigilSynth", "VigilLiveness", "VigilFace", "VigilDocument", "VigilCore"]),
        .testTarget(name: "VigilCLITests", dependencies: ["vigil", "VigilCore", "VigilDocument", "VigilFace", "VigilHTTP", "VigilServer", "VigilStore", "VigilSynth",
                                                        "VigilTestSupport", "VigilVerifier"]),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
