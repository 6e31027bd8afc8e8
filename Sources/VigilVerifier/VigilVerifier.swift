import Foundation
import VigilCore
import VigilCrypto

/// What a tenant backend needs to trust Vigil's answers: signed results checked against the
/// server's JWK set, and webhook deliveries checked against the webhook secret.
public enum VigilVerifier {
    /// Clock skew tolerated for an `iat` in the future.
    public static let allowedSkew: TimeInterval = 60

    /// Verifies a compact JWS result: EdDSA only, the key by `kid` in `jwks`, the signature over
    /// the exact bytes, `aud` equal to `audience` (the tenant id), `sub` equal to `sessionId`, and
    /// `iat` within `maxAge` of `now`. The session is required: without it, any passed result of
    /// the tenant would do, and results come back through the device.
    public static func verifyResult(jws: String, jwks: JWKSet, audience: String, sessionId: String,
                                    maxAge: TimeInterval = 3600, now: Date = Date()) throws(VerificationError) -> VerifiedResult {
        let parsed: CompactJWS
        do {
            parsed = try CompactJWS(parsing: jws.trimmingCharacters(in: .whitespacesAndNewlines))
        } catch {
            throw .malformed("not a compact JWS: \(error)")
        }
        guard parsed.header.alg == "EdDSA" else { throw .unsupportedAlgorithm(parsed.header.alg) }
        guard let kid = parsed.header.kid, let jwk = jwks.key(id: kid) else { throw .unknownKeyId(parsed.header.kid ?? "") }
        guard jwk.kty == "OKP", jwk.crv == "Ed25519", let key = jwk.ed25519PublicKey else {
            throw .malformed("the key '\(kid)' is not an Ed25519 public key")
        }
        guard parsed.isSigned(by: key) else { throw .badSignature }
        // Only signed bytes are decoded.
        let claims: VerdictPayload
        do {
            claims = try JSONDecoder().decode(VerdictPayload.self, from: Data(parsed.payload))
        } catch {
            throw .malformed("the payload is not a Vigil result")
        }
        guard claims.aud == audience else { throw .wrongAudience(expected: audience, found: claims.aud) }
        guard claims.sub == sessionId else { throw .wrongSession(expected: sessionId, found: claims.sub) }
        let nowSeconds = now.timeIntervalSince1970
        guard Double(claims.iat) <= nowSeconds + allowedSkew else { throw .issuedInFuture(issuedAt: claims.iat) }
        guard Double(claims.iat) + maxAge >= nowSeconds else { throw .expired(issuedAt: claims.iat, maxAge: Int(maxAge)) }
        return VerifiedResult(claims: claims, kid: kid, compact: parsed.compact)
    }

    /// Verifies with keys from `fetcher`, which fetches the set again once for a `kid` it has
    /// not seen (the server rotated its key).
    public static func verifyResult(jws: String, fetcher: JWKSFetcher, audience: String, sessionId: String,
                                    maxAge: TimeInterval = 3600, now: Date = Date()) async throws(VerificationError) -> VerifiedResult {
        let kid = (try? CompactJWS(parsing: jws.trimmingCharacters(in: .whitespacesAndNewlines)))?.header.kid ?? ""
        let jwks = try await fetcher.keySet(containing: kid)
        return try verifyResult(jws: jws, jwks: jwks, audience: audience, sessionId: sessionId, maxAge: maxAge, now: now)
    }

    /// Verifies a webhook delivery: `signatureHeader` is its `Vigil-Signature` header, `secret`
    /// the tenant's webhook secret; the MAC is compared in constant time and the timestamp must
    /// be within `tolerance` of `now`. Returns the event; its `signedResult`, when present, still
    /// goes through `verifyResult` before it is trusted.
    public static func verifyWebhook(body: [UInt8], signatureHeader: String, secret: String, tolerance: TimeInterval = 300,
                                     now: Date = Date()) throws(WebhookVerificationError) -> WebhookEvent {
        do {
            try WebhookSignature.verify(body: body, header: signatureHeader, secret: secret, tolerance: tolerance, now: now)
        } catch {
            throw .signature(error)
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let event = try? decoder.decode(WebhookEvent.self, from: Data(body)) else { throw .malformedBody }
        return event
    }
}

/// Why a webhook delivery was refused.
public enum WebhookVerificationError: Error, Equatable, Sendable {
    /// The signature header is malformed, does not match, or is too old.
    case signature(WebhookSignature.Failure)
    /// Signed correctly, but not a Vigil event body.
    case malformedBody
}
