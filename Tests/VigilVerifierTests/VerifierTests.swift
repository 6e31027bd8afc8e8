import Foundation
import Synchronization
import Testing
import VigilCore
import VigilCrypto
import VigilVerifier

/// Signed results and webhooks, checked by `VigilVerifier` and, in both directions, by an
/// independent implementation: Debian's PyJWT and `cryptography` (installed by `scripts/setup`).
struct VerifierTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func payload(aud: String = "ten_a", sub: String = "ses_1", iat: Int = 1_800_000_000, outcome: String = "passed") -> VerdictPayload {
        VerdictPayload(iss: "http://vigil.test", aud: aud, sub: sub, iat: iat, jti: "res_1", externalRef: "order-7", outcome: outcome, score: 0.91,
                       feedback: [], checks: ["challenges": .init(passed: true, score: 0.9)])
    }

    static func signed(_ payload: VerdictPayload, key: Ed25519PrivateKey, kid: String = "k1") throws -> String {
        CompactJWS.signed(payload: Array(try VigilJSON.encoder().encode(payload)), key: key, kid: kid).compact
    }

    /// Runs `script` with Debian's Python 3 (where its python3-jwt is), `input` on stdin; returns stdout.
    static func python(_ script: String, input: String = "") throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script]
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw VerificationError.malformed("python failed: \(String(decoding: err, as: UTF8.self))")
        }
        return String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aResultSignedByPyJWTVerifiesAndATamperedOneDoesNot() throws {
        let out = try Self.python("""
            import json, jwt
            from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
            from cryptography.hazmat.primitives import serialization
            key = Ed25519PrivateKey.generate()
            raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
            import base64
            x = base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
            claims = {"iss": "http://vigil.test", "aud": "ten_a", "sub": "ses_9", "iat": 1800000000, "jti": "res_9",
                      "outcome": "passed", "score": 0.8, "feedback": [], "checks": {}}
            token = jwt.encode(claims, key, algorithm="EdDSA", headers={"kid": "py1"})
            print(json.dumps({"x": x, "token": token}))
            """)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: String])
        let jwks = JWKSet(keys: [JWK(ed25519PublicKey: try #require(Base64URL.decode(object["x"]!)), kid: "py1")])
        let token = try #require(object["token"])
        let verified = try VigilVerifier.verifyResult(jws: token, jwks: jwks, audience: "ten_a", sessionId: "ses_9", now: Self.now)
        #expect(verified.passed && verified.kid == "py1" && verified.claims.jti == "res_9")
        // A changed payload (outcome flipped, signature kept) does not verify.
        let parts = token.split(separator: ".").map(String.init)
        var claims = try #require(try JSONSerialization.jsonObject(with: Data(Base64URL.decode(parts[1])!)) as? [String: Any])
        claims["outcome"] = "failed"
        let forged = parts[0] + "." + Base64URL.encode(Array(try JSONSerialization.data(withJSONObject: claims))) + "." + parts[2]
        #expect(throws: VerificationError.badSignature) { try VigilVerifier.verifyResult(jws: forged, jwks: jwks, audience: "ten_a", sessionId: "ses_9", now: Self.now) }
    }

    @Test func aResultSignedHereVerifiesInPyJWTAndATamperedOneFailsThere() throws {
        let key = Ed25519PrivateKey()
        let jws = try Self.signed(Self.payload(), key: key)
        var tampered = Array(jws.utf8)
        tampered[tampered.count - 5] = tampered[tampered.count - 5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let jwk = JWK(ed25519PublicKey: key.publicKey.rawRepresentation, kid: "k1")
        let input = String(decoding: try JSONEncoder().encode(["jwk": String(decoding: try JSONEncoder().encode(jwk), as: UTF8.self),
                                                              "good": jws, "bad": String(decoding: tampered, as: UTF8.self)]), as: UTF8.self)
        let out = try Self.python("""
            import json, sys, jwt
            data = json.load(sys.stdin)
            key = jwt.PyJWK(json.loads(data["jwk"])).key
            options = {"verify_iat": False}
            claims = jwt.decode(data["good"], key, algorithms=["EdDSA"], audience="ten_a", options=options)
            try:
                jwt.decode(data["bad"], key, algorithms=["EdDSA"], audience="ten_a", options=options)
                bad = "accepted"
            except jwt.InvalidSignatureError:
                bad = "rejected"
            try:
                jwt.decode(data["good"], key, algorithms=["EdDSA"], audience="ten_b", options=options)
                aud = "accepted"
            except jwt.InvalidAudienceError:
                aud = "rejected"
            print(json.dumps({"sub": claims["sub"], "outcome": claims["outcome"], "kid": jwt.get_unverified_header(data["good"])["kid"],
                              "bad": bad, "aud": aud}))
            """, input: input)
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: String])
        #expect(seen == ["sub": "ses_1", "outcome": "passed", "kid": "k1", "bad": "rejected", "aud": "rejected"])
    }

    @Test func webhookSignaturesAgreeWithPythonsHMACBothWays() throws {
        let body = Array(#"{"id":"evt_1","type":"session.completed","createdAt":"2027-01-15T08:00:00Z","sessionId":"ses_1","status":"completed"}"#.utf8)
        let secret = "whsec_0123456789abcdef"
        let header = WebhookSignature.header(secret: secret, timestamp: 1_800_000_000, body: body)
        let pythonHeader = try Self.python("""
            import hmac, hashlib, sys
            body = sys.stdin.buffer.read()
            print("t=1800000000,v1=" + hmac.new(b"\(secret)", b"1800000000." + body, hashlib.sha256).hexdigest())
            """, input: String(decoding: body, as: UTF8.self))
        #expect(pythonHeader == header)
        let event = try VigilVerifier.verifyWebhook(body: body, signatureHeader: pythonHeader, secret: secret, now: Self.now)
        #expect(event.id == "evt_1" && event.type == "session.completed" && event.status == .completed)
    }

    @Test func everyWayAResultCanBeWrongHasItsOwnError() throws {
        let key = Ed25519PrivateKey(), other = Ed25519PrivateKey()
        let jwks = JWKSet(keys: [JWK(ed25519PublicKey: key.publicKey.rawRepresentation, kid: "k1")])
        func verify(_ jws: String, audience: String = "ten_a", session: String = "ses_1") throws(VerificationError) {
            _ = try VigilVerifier.verifyResult(jws: jws, jwks: jwks, audience: audience, sessionId: session, maxAge: 600, now: Self.now)
        }
        #expect(throws: VerificationError.badSignature) { try verify(try Self.signed(Self.payload(), key: other)) }
        #expect(throws: VerificationError.unknownKeyId("k2")) { try verify(try Self.signed(Self.payload(), key: key, kid: "k2")) }
        #expect(throws: VerificationError.wrongAudience(expected: "ten_b", found: "ten_a")) {
            try verify(try Self.signed(Self.payload(), key: key), audience: "ten_b")
        }
        #expect(throws: VerificationError.wrongSession(expected: "ses_2", found: "ses_1")) {
            try verify(try Self.signed(Self.payload(), key: key), session: "ses_2")
        }
        #expect(throws: VerificationError.expired(issuedAt: 1_800_000_000 - 601, maxAge: 600)) {
            try verify(try Self.signed(Self.payload(iat: 1_800_000_000 - 601), key: key))
        }
        #expect(throws: VerificationError.issuedInFuture(issuedAt: 1_800_000_000 + 61)) {
            try verify(try Self.signed(Self.payload(iat: 1_800_000_000 + 61), key: key))
        }
        // `alg: none` and a foreign algorithm are refused whatever the signature.
        let payload = Base64URL.encode(Array(try VigilJSON.encoder().encode(Self.payload())))
        let none = Base64URL.encode(Array(#"{"alg":"none","kid":"k1"}"#.utf8)) + "." + payload + "."
        #expect(throws: VerificationError.unsupportedAlgorithm("none")) { try verify(none) }
        let hs = Base64URL.encode(Array(#"{"alg":"HS256","kid":"k1"}"#.utf8)) + "." + payload + "." + Base64URL.encode([1, 2, 3])
        #expect(throws: VerificationError.unsupportedAlgorithm("HS256")) { try verify(hs) }
        for junk in ["", "a.b", "....", "not base64.x.y", String(repeating: "A", count: 70_000)] {
            #expect(throws: VerificationError.self) { try verify(junk) }
        }
        // Signed, but not a Vigil result.
        let stranger = CompactJWS.signed(payload: Array(#"{"hello":"world"}"#.utf8), key: key, kid: "k1").compact
        #expect(throws: VerificationError.malformed("the payload is not a Vigil result")) { try verify(stranger) }
    }

    @Test func tamperedExpiredAndMalformedWebhooksAreRefused() throws {
        let body = Array(#"{"id":"evt_1","type":"session.expired","createdAt":"2027-01-15T08:00:00Z","sessionId":"ses_1","status":"expired"}"#.utf8)
        let header = WebhookSignature.header(secret: "s3cret", timestamp: 1_800_000_000, body: body)
        func verify(_ body: [UInt8], _ header: String, secret: String = "s3cret", now: Date = Self.now) throws(WebhookVerificationError) {
            _ = try VigilVerifier.verifyWebhook(body: body, signatureHeader: header, secret: secret, tolerance: 300, now: now)
        }
        try verify(body, header)
        #expect(throws: WebhookVerificationError.signature(.mismatch)) { try verify(body + [0x20], header) }
        #expect(throws: WebhookVerificationError.signature(.mismatch)) { try verify(body, header, secret: "other") }
        #expect(throws: WebhookVerificationError.signature(.outsideTolerance(secondsOff: 301))) {
            try verify(body, header, now: Self.now.addingTimeInterval(301))
        }
        for bad in ["", "t=1", "v1=00", "t=x,v1=" + String(repeating: "0", count: 64), "t=1800000000,v1=zz", "garbage"] {
            #expect(throws: WebhookVerificationError.signature(.malformedHeader)) { try verify(body, bad) }
        }
        // Rotation: any one matching v1 value is enough.
        let rotated = header + ",v1=" + String(repeating: "ab", count: 32)
        try verify(body, rotated)
        let notAnEvent = Array("[]".utf8)
        #expect(throws: WebhookVerificationError.malformedBody) {
            try verify(notAnEvent, WebhookSignature.header(secret: "s3cret", timestamp: 1_800_000_000, body: notAnEvent))
        }
    }

    @Test func theFetcherCachesKeysByKidAndFetchesAgainOnlyForANewOneAtMostOncePerInterval() async throws {
        let first = Ed25519PrivateKey(), second = Ed25519PrivateKey()
        let served = Mutex([JWK(ed25519PublicKey: first.publicKey.rawRepresentation, kid: "k1")])
        let fetcher = JWKSFetcher(url: URL(string: "http://vigil.test/.well-known/jwks.json")!, minimumRefreshInterval: 0.2) { _ in
            try JSONEncoder().encode(JWKSet(keys: served.withLock { $0 }))
        }
        let now = Date()
        let one = try Self.signed(Self.payload(iat: Int(now.timeIntervalSince1970)), key: first, kid: "k1")
        for _ in 0..<3 { _ = try await VigilVerifier.verifyResult(jws: one, fetcher: fetcher, audience: "ten_a", sessionId: "ses_1", now: now) }
        #expect(await fetcher.fetchCount == 1)
        // The server rotates: a result under the new kid fetches once more; the old one still verifies.
        served.withLock { $0.append(JWK(ed25519PublicKey: second.publicKey.rawRepresentation, kid: "k2")) }
        try await Task.sleep(for: .milliseconds(250))
        let two = try Self.signed(Self.payload(iat: Int(now.timeIntervalSince1970)), key: second, kid: "k2")
        _ = try await VigilVerifier.verifyResult(jws: two, fetcher: fetcher, audience: "ten_a", sessionId: "ses_1", now: now)
        _ = try await VigilVerifier.verifyResult(jws: one, fetcher: fetcher, audience: "ten_a", sessionId: "ses_1", now: now)
        #expect(await fetcher.fetchCount == 2)
        // Made-up kids cost one fetch per interval, not one each.
        try await Task.sleep(for: .milliseconds(250))
        let forged = try Self.signed(Self.payload(), key: second, kid: "nope")
        for _ in 0..<5 {
            await #expect(throws: VerificationError.unknownKeyId("nope")) {
                try await VigilVerifier.verifyResult(jws: forged, fetcher: fetcher, audience: "ten_a", sessionId: "ses_1", now: now)
            }
        }
        #expect(await fetcher.fetchCount == 3)
    }

    @Test func aKeyTheServerRevokedStopsVerifyingOnceTheSetIsOld() async throws {
        let first = Ed25519PrivateKey(), second = Ed25519PrivateKey()
        let served = Mutex([JWK(ed25519PublicKey: first.publicKey.rawRepresentation, kid: "k1"),
                            JWK(ed25519PublicKey: second.publicKey.rawRepresentation, kid: "k2")])
        let fetcher = JWKSFetcher(url: URL(string: "http://vigil.test/.well-known/jwks.json")!, minimumRefreshInterval: 0.1, maximumAge: 0.3) { _ in
            try JSONEncoder().encode(JWKSet(keys: served.withLock { $0 }))
        }
        let now = Date()
        let one = try Self.signed(Self.payload(iat: Int(now.timeIntervalSince1970)), key: first, kid: "k1")
        _ = try await VigilVerifier.verifyResult(jws: one, fetcher: fetcher, audience: "ten_a", sessionId: "ses_1", now: now)
        served.withLock { $0.removeFirst() }
        try await Task.sleep(for: .milliseconds(350))
        await #expect(throws: VerificationError.unknownKeyId("k1")) {
            try await VigilVerifier.verifyResult(jws: one, fetcher: fetcher, audience: "ten_a", sessionId: "ses_1", now: now)
        }
        #expect(await fetcher.fetchCount == 2)
    }
}
