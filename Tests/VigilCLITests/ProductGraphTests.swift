import Foundation
import Testing

/// The two products app and backend developers depend on, read from the manifest as SwiftPM
/// sees it (`swift package dump-package`): no unsafe flags and none of dlib, libmicrohttpd or
/// SQLite anywhere in their target graph. A path dependency would build even with unsafe flags,
/// so the example packages alone do not prove this.
struct ProductGraphTests {
    struct Target {
        let name: String, dependencies: [String], settings: [[String: Any]], pkgConfig: String?

        /// Each setting's kind (`unsafeFlags`, `define`, `linkedLibrary`, ...).
        var kinds: Set<String> { Set(settings.compactMap { ($0["kind"] as? [String: Any])?.keys.first }) }
        /// The libraries its linker settings name.
        var linkedLibraries: Set<String> {
            Set(settings.compactMap { (($0["kind"] as? [String: Any])?["linkedLibrary"] as? [String: Any])?["_0"] as? String })
        }
    }

    static func manifest() throws -> (products: [String: [String]], targets: [String: Target]) {
        let root = BackendExampleTests.package.deletingLastPathComponent().deletingLastPathComponent()
        // A scratch path of its own: the running `swift test` holds the package's build directory.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-dump-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let dump = try CLITests.run(["package", "--package-path", root.path, "--scratch-path", scratch.path, "dump-package"], executable: try CLITests.swift())
        #expect(dump.status == 0, "\(dump.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: dump.stdout) as? [String: Any])
        var products: [String: [String]] = [:]
        for product in json["products"] as? [[String: Any]] ?? [] {
            products[product["name"] as? String ?? ""] = product["targets"] as? [String] ?? []
        }
        var targets: [String: Target] = [:]
        for target in json["targets"] as? [[String: Any]] ?? [] {
            // A dependency is {"byName": [name, condition]} or {"target": [name, condition]}.
            let dependencies = (target["dependencies"] as? [[String: Any]] ?? []).compactMap { ($0.values.first as? [Any])?.first as? String }
            let name = target["name"] as? String ?? ""
            targets[name] = Target(name: name, dependencies: dependencies, settings: target["settings"] as? [[String: Any]] ?? [],
                                   pkgConfig: target["pkgConfig"] as? String)
        }
        return (products, targets)
    }

    @Test func theSDKAndVerifierProductsCarryNoUnsafeFlagsAndNoServerLibraries() throws {
        let (products, targets) = try Self.manifest()
        for product in ["VigilSDK", "VigilVerifier"] {
            var seen: Set<String> = []
            var queue = try #require(products[product])
            while let name = queue.popLast() {
                guard seen.insert(name).inserted, let target = targets[name] else { continue }
                queue += target.dependencies
            }
            #expect(seen.isDisjoint(with: ["CDlibFace", "CMicroHTTPD", "CSQLite", "VigilFace", "VigilHTTP", "VigilStore", "VigilServer"]), "\(product): \(seen.sorted())")
            for name in seen {
                let target = try #require(targets[name])
                #expect(!target.kinds.contains("unsafeFlags"), "\(product) -> \(name)")
                #expect(target.linkedLibraries.isDisjoint(with: ["dlib", "microhttpd", "sqlite3"]), "\(product) -> \(name)")
                #expect(!["sqlite3", "libmicrohttpd"].contains(target.pkgConfig ?? ""), "\(product) -> \(name)")
            }
        }
        // The checks can fail: the face shim has both.
        let shim = try #require(targets["CDlibFace"])
        #expect(shim.kinds.contains("unsafeFlags") && shim.linkedLibraries.contains("dlib"))
    }
}
