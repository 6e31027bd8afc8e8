import Foundation
import Testing
import VigilCore
import VigilFace
import VigilHTTP
@testable import VigilServer
import VigilTestSupport

/// Hostile inputs, round two: what a caller with a valid API key or one session token could do
/// to the document reader, to admission and to the metrics, each answered as bounded work.
@Suite struct HostileInputsTests {
    /// A small PNG whose header announces `width` x `height` (its data left as it is).
    static func png(announcing width: Int, _ height: Int) throws -> [UInt8] {
        var data = try Image(rgb: [UInt8](repeating: 255, count: 32 * 32 * 3), width: 32, height: 32).pngData()
        for (offset, value) in [(16, width), (20, height)] {
            data.replaceSubrange(offset..<(offset + 4), with: (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) })
        }
        return data
    }

    /// An 8 KB PNG of 240000x35 pixels made the reader allocate 2 GB: refused from its header.
    @Test func aDocumentPhotoOfAnExtremeShapeIsRefusedFromItsHeader() throws {
        let t = try TestServer(inProcess: true, faces: .none)
        for (width, height) in [(240_000, 35), (120_000, 70), (35, 240_000)] {
            let read = t.json("POST", "/v1/documents/read", ["image": Data(try Self.png(announcing: width, height)).base64EncodedString()])
            #expect(read.status == 422 && read.errorCode == "invalid_image", "\(width)x\(height): \(read.status)")
        }
    }

    /// Each photo of a session's document step counts, read or not: past 120 the session fails,
    /// locked out, and reads no more.
    @Test func aSessionsDocumentPhotosAreBounded() throws {
        let t = try TestServer(checkCaptureClock: false, inProcess: true, faces: .none, rateLimited: false)
        let (id, token) = t.createSession(["policy": DeviceAPITests.onePersonPolicy.merging(["document": ["types": ["passport"]]]) { _, b in b }])
        let blank = try Image(rgb: [UInt8](repeating: 200, count: 160 * 120 * 3), width: 160, height: 120).jpegData(quality: 80)
        func photo() -> TestServer.Response {
            t.request("POST", "/v1/client/document", bearer: token, headers: ["Content-Type": "image/jpeg"], body: blank)
        }
        for _ in 0..<DocumentStep.maxPhotos {
            let answer = photo()
            #expect(answer.status == 200 && answer.json["captured"] as? Bool == false && answer.json["lockedOut"] == nil)
        }
        let last = photo()
        #expect(last.status == 200 && last.json["lockedOut"] as? Bool == true)
        let session = t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["a"]).json
        #expect(session["status"] as? String == "completed")
        let checks = (session["result"] as? [String: Any])?["checks"] as? [String: Any]
        #expect((checks?["document"] as? [String: Any])?["reason"] as? String == "document_photos_exhausted")
        #expect(photo().errorCode == "session_locked")
    }

    /// 150 frames refused before they were decoded (sent as text, then over the token's limit
    /// or the node's burst) move the measured capacity nowhere: only frames decoded and analysed
    /// measure it.
    @Test func framesRefusedBeforeAnalysisDoNotMoveTheCapacity() throws {
        let t = try TestServer(checkCaptureClock: false, inProcess: true, faces: .none, frameCapacity: nil)
        let (_, token) = t.createSession()
        func capacity() -> String? {
            String(decoding: t.request("GET", "/metrics").body, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("vigil_frame_capacity ") }.map(String.init)
        }
        let before = try #require(capacity())
        for _ in 0..<150 {
            let refused = t.request("POST", "/v1/client/frames", bearer: token, headers: ["Content-Type": "text/plain", "Vigil-Capture-Time": "0"], body: [1, 2, 3])
            #expect([415, 429, 503].contains(refused.status))
        }
        #expect(capacity() == before)
    }

    /// Once a token has spent its requests, its next frame is refused 429 on its headers: the
    /// 2 MB body it announces is never read, queued or counted against the node's frames.
    @Test func aTokenOverItsLimitIsRefusedBeforeItsBodyIsRead() throws {
        // Five requests, then one every 1000 s: the limit does not refill during the test.
        let t = try TestServer(checkCaptureClock: false, faces: .none, perSessionToken: (burst: 5, perSecond: 0.001))
        let (_, token) = t.createSession()
        for _ in 0..<5 { #expect(t.request("GET", "/v1/client/session", bearer: token).status == 200) }
        for path in ["/v1/client/frames", "/v1/client/document"] {
            let client = try RawHTTPClient(port: t.port)
            client.send(Array(("POST \(path) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
                               + "Content-Type: image/jpeg\r\nVigil-Capture-Time: 0\r\nContent-Length: 2000000\r\n\r\n").utf8))
            #expect(try client.readResponse().error?.code == "rate_limited", "\(path)")
        }
    }

    /// Methods a client makes up (one that would close a label, 150 of 4 KB) are counted as
    /// `other`: the scrape still parses strictly and does not grow with them.
    @Test func madeUpMethodsLeaveTheMetricsParseableAndBounded() throws {
        let t = try TestServer(faces: .none)
        _ = try RawHTTPClient(port: t.port).request("GET", "/healthz")
        func scrape() throws -> String {
            let answer = try RawHTTPClient(port: t.port).request("GET", "/metrics")
            #expect(answer.status == 200)
            return String(decoding: answer.body, as: UTF8.self)
        }
        let quiet = try scrape()
        let long = String(repeating: "X", count: 4096)
        for method in ["A,route=\"x", "GET\"}", "A\\"] + Array(repeating: long, count: 150) {
            let client = try RawHTTPClient(port: t.port)
            client.send(Array("\(method) /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            _ = try? client.readResponse()
        }
        let text = try scrape()
        #expect(text.count < quiet.count + 8192, "\(quiet.count) -> \(text.count)")
        #expect(!text.contains(long))
        try PrometheusText.parse(text)
    }

    /// Behind a trusted proxy on loopback, a hop that is not an address (a port appended,
    /// `unknown`) is a client of its own: never the proxy, so never loopback's `/metrics`.
    @Test func aMalformedForwardingHopIsAnUntrustedClient() throws {
        let t = try TestServer(faces: .none, trustedProxies: [try #require(IPRange("127.0.0.1/32"))])
        for hop in ["203.0.113.1:5555", "unknown", "203.0.113.1"] {
            #expect(t.request("GET", "/metrics", headers: ["X-Forwarded-For": hop]).status == 404, "\(hop)")
        }
        #expect(t.request("GET", "/metrics").status == 200)
        #expect(IPRange.client(peer: "127.0.0.1", forwardedFor: "unknown", trusted: [try #require(IPRange("127.0.0.1/32"))]) == "unparsed:unknown")
    }

    /// libpq's parse errors quote what they stumbled on, the password included: the server's
    /// error names what to check and quotes nothing of the connection string.
    @Test func aConnectionStringsPasswordIsNeverInAnError() {
        for url in ["postgres://vigil:S3cret%zzPW@127.0.0.1:1/vigil", "postgres://vigil:S3cretPW@127.0.0.1:1/vigil", "host=127.0.0.1 port=1 password=S3cretPW user"] {
            do {
                _ = try VigilServer.openStore(database: url, connections: 1)
                Issue.record("opened \(url)")
            } catch {
                #expect(!error.description.contains("S3cret"), "\(error.description)")
            }
        }
    }
}

/// A strict reader of the Prometheus text format (0.0.4): `# TYPE` lines, then samples of a
/// metric name, labels of names and escaped quoted values, and a number.
enum PrometheusText {
    struct Malformed: Error, CustomStringConvertible { let description: String }

    static func parse(_ text: String) throws {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                guard parts.count == 4, isName(parts[2]), ["counter", "gauge", "histogram"].contains(parts[3]) else { throw Malformed(description: String(line)) }
                continue
            }
            var rest = Substring(line)
            let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" }
            guard isName(name) else { throw Malformed(description: String(line)) }
            rest = rest.dropFirst(name.count)
            if rest.first == "{" {
                rest = rest.dropFirst()
                while rest.first != "}" {
                    let label = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                    guard isName(label), rest.dropFirst(label.count).hasPrefix("=\"") else { throw Malformed(description: String(line)) }
                    rest = rest.dropFirst(label.count + 2)
                    while let c = rest.first, c != "\"" {
                        if c == "\\" {
                            guard let next = rest.dropFirst().first, ["\\", "\"", "n"].contains(next) else { throw Malformed(description: String(line)) }
                            rest = rest.dropFirst(2)
                        } else {
                            rest = rest.dropFirst()
                        }
                    }
                    guard rest.first == "\"" else { throw Malformed(description: String(line)) }
                    rest = rest.dropFirst()
                    if rest.first == "," { rest = rest.dropFirst() } else if rest.first != "}" { throw Malformed(description: String(line)) }
                }
                rest = rest.dropFirst()
            }
            guard rest.first == " ", Double(rest.dropFirst()) != nil || rest.dropFirst() == "+Inf" else { throw Malformed(description: String(line)) }
        }
    }

    private static func isName(_ s: Substring) -> Bool {
        guard let first = s.first, first.isLetter || first == "_" || first == ":" else { return false }
        return s.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "_" || $0 == ":" }
    }
}
