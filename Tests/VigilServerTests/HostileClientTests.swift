import Foundation
import Testing
import VigilTestSupport

/// Clients that try to make the server spend memory or connections on them before it knows who
/// they are.
@Suite struct HostileClientTests {
    /// Twenty strangers each announcing the largest body `/v1/compare` takes: each is refused on
    /// its headers, before a body byte is read or a buffer allocated for it (401, and 429 once
    /// the address has failed authentication 30 times).
    @Test func aStrangersLargeBodyIsRefusedOnItsHeaders() throws {
        let t = try TestServer(faces: .none)
        let announced = "Content-Type: application/json\r\nContent-Length: 17000000\r\n\r\n"
        for bearer in ["", "Authorization: Bearer vk_live_not-a-key\r\n", "Authorization: Bearer not-even-a-key\r\n"] {
            let clients = try (0..<20).map { _ in try RawHTTPClient(port: t.port) }
            for client in clients { client.send(Array("POST /v1/compare HTTP/1.1\r\nHost: x\r\n\(bearer)\(announced)".utf8)) }
            for client in clients {
                let response = try client.readResponse()
                #expect(["missing_api_key", "invalid_api_key", "rate_limited"].contains(response.error?.code ?? ""), "\(response.status)")
            }
        }
        // A frame needs a session token the same way (from another address: this one is locked out).
        let frame = try RawHTTPClient(port: t.port, from: "127.0.0.2")
        frame.send(Array("POST /v1/client/frames HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer guessed\r\nContent-Type: image/jpeg\r\nVigil-Capture-Time: 0\r\nContent-Length: 2000000\r\n\r\n".utf8))
        #expect(try frame.readResponse().error?.code == "invalid_token")
    }

    /// A tenant's client that writes a 40 MB body before reading the answer (as `requests` does)
    /// reads its 413, not a reset connection: the body is read and dropped first.
    @Test func aFortyMegabyteBodyWrittenBeforeReadingGetsItsAnswer() throws {
        let t = try TestServer(faces: .none)
        let client = try RawHTTPClient(port: t.port)
        let size = 40_000_000
        #expect(client.send(Array("POST /v1/sessions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(t.apiKeys["a"]!)\r\nContent-Type: application/json\r\nContent-Length: \(size)\r\n\r\n".utf8)
                            + [UInt8](repeating: 32, count: size)), "the server cut the connection while the body was being sent")
        let response = try client.readResponse()
        #expect(response.status == 413 && response.error?.code == "body_too_large")
    }

    /// A stranger that writes its whole (small) body before reading still gets its 401, and a
    /// client with a valid key is served as before.
    @Test func aStrangerWritingItsBodyFirstGetsTheAnswerAndAKeyHolderIsServed() throws {
        let t = try TestServer(faces: .none)
        let body = Array(#"{"riskLevel":"low"}"#.utf8)
        let stranger = try RawHTTPClient(port: t.port)
        #expect(stranger.send(Array("POST /v1/sessions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer vk_live_nope\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body))
        #expect(try stranger.readResponse().error?.code == "invalid_api_key")
        let holder = try RawHTTPClient(port: t.port)
        let created = try holder.request("POST", "/v1/sessions", headers: ["Authorization": "Bearer \(t.apiKeys["a"]!)", "Content-Type": "application/json"], body: body)
        #expect(created.status == 201)
    }
}
