import Foundation
import Testing
import VigilCore
import VigilServer

/// Keys rotated or revoked by another process (the CLI, another node on the same database) take
/// effect on a running server without a restart.
@Suite struct SigningKeyTests {
    /// The kids the server's JWKS lists.
    static func publishedKids(_ t: TestServer) -> Set<String> {
        Set(t.request("GET", "/.well-known/jwks.json").decode(JWKSet.self)?.keys.map(\.kid) ?? [])
    }

    /// Polls until `condition` holds, for at most twice the refresh interval and a few seconds.
    static func eventually(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(2 * Administration.keyRefreshInterval + 5)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return condition()
    }

    /// The kid a session's signed result carries (a session finished at once fails, signed).
    static func signingKid(_ t: TestServer) throws -> String? {
        let (_, token) = t.createSession()
        let finished = t.request("POST", "/v1/client/finish", bearer: token)
        return try CompactJWS(parsing: try #require(finished.json["signedResult"] as? String)).header.kid
    }

    @Test func aRotationByAnotherProcessIsPublishedAndUsedWithoutARestart() throws {
        let t = try TestServer(inProcess: true, faces: .none)
        let before = Self.publishedKids(t)
        let old = try #require(before.first)
        #expect(try Self.signingKid(t) == old)
        let rotated = try Administration.rotateSigningKey(in: t.store)
        #expect(Self.eventually { Self.publishedKids(t) == [old, rotated] })
        #expect(try Self.signingKid(t) == rotated)
    }

    @Test func aRevokedKeyLeavesTheJWKSAndARevokedActiveKeyIsReplaced() throws {
        let t = try TestServer(inProcess: true, faces: .none)
        let first = try #require(Self.publishedKids(t).first)
        let second = try Administration.rotateSigningKey(in: t.store)
        // A retired key: it just leaves; the active one goes on signing.
        #expect(try Administration.revokeSigningKey(first, in: t.store) == second)
        #expect(Self.eventually { Self.publishedKids(t) == [second] })
        // The active key: a new one takes over at once.
        let third = try #require(try Administration.revokeSigningKey(second, in: t.store))
        #expect(third != second)
        #expect(Self.eventually { Self.publishedKids(t) == [third] })
        #expect(try Self.signingKid(t) == third)
        #expect(try Administration.revokeSigningKey("k_missing", in: t.store) == nil)
    }
}
