import Foundation
import Testing
@testable import VigilServer
import VigilHTTP
import VigilStore

/// The data directory holds the signing keys' seeds and personal data: no other local user may
/// read it.
@Suite struct SecretsAtRestTests {
    static func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test func theDataDirectoryIsTheOwnersAndTheDatabaseAndItsJournalsTooEvenWhenCreatedLooser() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-modes-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        // A directory and database left readable by an older version are tightened on open.
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let database = data.appendingPathComponent("vigil.sqlite").path
        #expect(FileManager.default.createFile(atPath: database, contents: nil, attributes: [.posixPermissions: 0o644]))
        let store = try VigilServer.openStore(data)
        _ = try Administration.createTenant(name: "modes", in: store)
        _ = try Administration.rotateSigningKey(in: store)
        #expect(try Self.mode(data.path) == 0o700)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: database + suffix) {
            #expect(try Self.mode(database + suffix) == 0o600, "vigil.sqlite\(suffix)")
        }
        #expect(FileManager.default.fileExists(atPath: database + "-wal"))
    }
}

/// `/metrics` counts across tenants: it is the operator's.
@Suite struct MetricsAccessTests {
    @Test func metricsAnswerTheScrapeTokenOnlyAndWithoutOneOnlyLoopbackPeers() throws {
        let t = try TestServer(inProcess: true, faces: .none, metricsToken: "scrape-secret")
        #expect(t.request("GET", "/metrics").status == 404)
        #expect(t.request("GET", "/metrics", bearer: "wrong").status == 404)
        let scraped = t.request("GET", "/metrics", bearer: "scrape-secret")
        #expect(scraped.status == 200 && String(decoding: scraped.body, as: UTF8.self).contains("vigil_live_sessions"))

        func request(from address: String, bearer: String? = nil) -> HTTPRequest {
            var request = HTTPRequest(method: "GET", path: "/metrics", remoteAddress: address)
            if let bearer { request.headers["authorization"] = "Bearer \(bearer)" }
            return request
        }
        #expect(PublicAPI.mayScrape(request(from: "127.0.0.1"), token: nil))
        #expect(PublicAPI.mayScrape(request(from: "::1"), token: nil))
        #expect(!PublicAPI.mayScrape(request(from: "203.0.113.7"), token: nil))
        #expect(PublicAPI.mayScrape(request(from: "203.0.113.7", bearer: "t"), token: "t"))
        #expect(!PublicAPI.mayScrape(request(from: "127.0.0.1"), token: "t"))
    }
}
