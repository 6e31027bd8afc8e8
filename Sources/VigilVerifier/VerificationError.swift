/// Why a signed result was refused. Treat every case as "not verified".
public enum VerificationError: Error, Equatable, Sendable {
    /// Not a compact JWS, or its payload is not a Vigil result.
    case malformed(String)
    /// The header names an algorithm other than EdDSA (`none` included).
    case unsupportedAlgorithm(String)
    /// No key in the JWK set has the header's `kid` (or the header has none).
    case unknownKeyId(String)
    /// The signature does not verify with the key: the result was changed or signed by another.
    case badSignature
    /// Signed for another tenant.
    case wrongAudience(expected: String, found: String)
    /// Signed for another session than the one this backend created.
    case wrongSession(expected: String, found: String)
    /// Issued longer ago than the accepted age (`iat` + `maxAge` before `now`).
    case expired(issuedAt: Int, maxAge: Int)
    /// Issued in the future, beyond the clock skew allowed.
    case issuedInFuture(issuedAt: Int)
    /// The JWK set could not be fetched or read.
    case keySetUnavailable(String)
}
