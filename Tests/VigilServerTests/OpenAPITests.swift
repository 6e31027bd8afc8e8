import Foundation
import Testing

@Suite(.serialized) struct OpenAPITests {
    /// `(method, path)` pairs of docs/openapi.yaml: paths are two-space keys under `paths:`,
    /// methods four-space keys under them.
    static func documented() throws -> Set<String> {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/openapi.yaml").standardized
        let lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
        var out: Set<String> = []
        var inPaths = false, path: String?
        for line in lines {
            if line == "paths:" { inPaths = true; continue }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") { path = String(line.dropFirst(2).dropLast()) }
            let methods = ["get", "post", "put", "delete", "patch"]
            if let path, line.hasPrefix("    "), !line.hasPrefix("     "), let name = line.dropFirst(4).split(separator: ":").first,
               methods.contains(String(name)) {
                out.insert("\(name.uppercased()) \(path)")
            }
        }
        return out
    }

    @Test func everyRegisteredRouteIsDocumentedAndNothingElse() throws {
        let t = try TestServer()
        let registered = Set(t.server.routes.map { "\($0.method) \($0.pattern)" })
        let documented = try Self.documented()
        #expect(!documented.isEmpty)
        #expect(registered.subtracting(documented).isEmpty, "undocumented: \(registered.subtracting(documented).sorted())")
        #expect(documented.subtracting(registered).isEmpty, "documented but not served: \(documented.subtracting(registered).sorted())")
    }
}
