import Foundation
import Testing
import VigilCore

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
        let t = try TestServer(demo: true)   // every route, the demo's included
        let registered = Set(t.server.routes.map { "\($0.method) \($0.pattern)" })
        let documented = try Self.documented()
        #expect(!documented.isEmpty)
        #expect(registered.subtracting(documented).isEmpty, "undocumented: \(registered.subtracting(documented).sorted())")
        #expect(documented.subtracting(registered).isEmpty, "documented but not served: \(documented.subtracting(registered).sorted())")
    }

    static func doc(_ name: String) throws -> String {
        try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/\(name)").standardized,
                   encoding: .utf8)
    }

    /// The error table of docs/api.md lists each code of the catalogue once, under its status.
    @Test func theAPIDocsListEveryErrorCodeUnderItsStatusAndNothingElse() throws {
        var listed: [String: Int] = [:]
        for line in try Self.doc("api.md").components(separatedBy: "\n") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 2, let status = Int(cells[0]) else { continue }
            // The codes are the backquoted words at the top level of the cell, not in parentheses.
            var depth = 0, code: String?
            for character in cells[1] {
                switch character {
                case "(": depth += 1
                case ")": depth -= 1
                case "`" where depth == 0:
                    if let done = code { #expect(listed.updateValue(status, forKey: done) == nil, "\(done) listed twice"); code = nil } else { code = "" }
                default: if code != nil { code!.append(character) }
                }
            }
        }
        let catalogue = Dictionary(uniqueKeysWithValues: APIErrorCode.allCases.map { ($0.rawValue, $0.status) })
        #expect(listed == catalogue, "missing: \(Set(catalogue.keys).subtracting(listed.keys).sorted()); unknown: \(Set(listed.keys).subtracting(catalogue.keys).sorted())")
    }

    /// The `Error` schema of docs/openapi.yaml enumerates exactly the catalogue.
    @Test func theOpenAPIErrorSchemaEnumeratesTheCatalogue() throws {
        let yaml = try Self.doc("openapi.yaml")
        let start = try #require(yaml.range(of: "              enum: ["))
        let list = yaml[start.upperBound...].prefix { $0 != "]" }
        let documented = list.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
        #expect(documented == APIErrorCode.allCases.map(\.rawValue))
    }

    /// The metrics table of docs/operations.md names exactly the metrics the server writes: every
    /// `vigil_` name in its sources, and every family a scrape shows after a session.
    @Test func theOperationsDocsListEveryMetricAndNothingElse() throws {
        var documented: Set<String> = []
        for line in try Self.doc("operations.md").components(separatedBy: "\n") where line.hasPrefix("| `vigil_") {
            documented.insert(String(line.dropFirst(3).prefix { $0 != "`" && $0 != "{" }))
        }
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/VigilServer").standardized
        var written: Set<String> = []
        for case let file as URL in FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)! where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            var rest = Substring(text)
            while let start = rest.range(of: "\"vigil_") {
                written.insert("vigil_" + rest[start.upperBound...].prefix { $0.isLetter || $0 == "_" })
                rest = rest[start.upperBound...]
            }
        }
        #expect(written == documented, "undocumented: \(written.subtracting(documented).sorted()); not written: \(documented.subtracting(written).sorted())")
        // A scrape after a session shows only documented families.
        let t = try TestServer(inProcess: true, faces: .none)
        _ = t.createSession()
        let scraped = String(decoding: t.request("GET", "/metrics").body, as: UTF8.self)
        for line in scraped.split(separator: "\n") where line.hasPrefix("# TYPE ") {
            let name = String(line.split(separator: " ")[2])
            #expect(documented.contains(name), "\(name) is scraped but not documented")
        }
        #expect(scraped.contains("vigil_http_request_duration_ms_bucket{method=\"POST\",route=\"/v1/sessions\",le=\"+Inf\"} 1"))
        #expect(scraped.contains("vigil_webhook_queue_depth 0"))
    }
}
