import Foundation
import Testing
import VigilHTTP
import VigilTestSupport

@Suite(.serialized) struct RateLimitTests {
    @Test func aSessionTokenPastItsBurstGets429WithRetryAfter() throws {
        let t = try TestServer(inProcess: true, faces: .none)
        let (_, token) = t.createSession()
        let statuses = (0..<80).map { _ in t.request("GET", "/v1/client/session", bearer: token) }
        let limited = try #require(statuses.first { $0.status == 429 })
        #expect(limited.errorCode == "rate_limited")
        #expect(Int(limited.headers["retry-after"] ?? "") ?? 0 >= 1)
        #expect(statuses.prefix(50).allSatisfy { $0.status == 200 })
        // Another session's token has its own bucket.
        let (_, other) = t.createSession()
        #expect(t.request("GET", "/v1/client/session", bearer: other).status == 200)
    }

    @Test func guessingTokensLocksTheAddressOut() throws {
        let t = try TestServer(inProcess: true, faces: .none)
        let (_, token) = t.createSession()
        let guesses = (0..<40).map { i in t.request("GET", "/v1/client/session", bearer: "guess-\(i)").status }
        #expect(guesses.prefix(30).allSatisfy { $0 == 401 })
        #expect(guesses.last == 429)
        // While locked out, even a valid token from that address waits.
        #expect(t.request("GET", "/v1/client/session", bearer: token).status == 429)
    }

    /// Behind a trusted proxy the limits follow the client it names; from any other peer the
    /// header is ignored, so a client cannot pick the address it is counted under.
    @Test func behindATrustedProxyTheLockOutFollowsTheForwardedClient() throws {
        let t = try TestServer(faces: .none, trustedProxies: [try #require(IPRange("127.0.0.2/32"))])
        let (_, token) = t.createSession()
        func status(from peer: String, client: String, bearer: String) throws -> Int {
            try RawHTTPClient(port: t.port, from: peer).request("GET", "/v1/client/session",
                                                                headers: ["X-Forwarded-For": client, "Authorization": "Bearer \(bearer)"]).status
        }
        let guesses = try (0..<40).map { i in try status(from: "127.0.0.2", client: "203.0.113.7", bearer: "guess-\(i)") }
        #expect(guesses.last == 429)
        #expect(try status(from: "127.0.0.2", client: "203.0.113.7", bearer: token) == 429)
        #expect(try status(from: "127.0.0.2", client: "203.0.113.8", bearer: token) == 200)
        #expect(try status(from: "127.0.0.3", client: "203.0.113.7", bearer: token) == 200)
    }
}
