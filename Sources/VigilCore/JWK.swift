import Foundation

/// A public key in JWK form (RFC 8037: OKP / Ed25519), as `/.well-known/jwks.json` lists it.
public struct JWK: Codable, Sendable, Hashable {
    /// Key type: "OKP".
    public var kty: String
    /// Curve: "Ed25519".
    public var crv: String
    /// The 32-byte public key, base64url.
    public var x: String
    /// Key id, matching the `kid` of the JWS header.
    public var kid: String
    /// Intended use: "sig".
    public var use: String
    /// Algorithm: "EdDSA".
    public var alg: String

    /// An Ed25519 signing key's public half.
    public init(ed25519PublicKey raw: [UInt8], kid: String) {
        kty = "OKP"
        crv = "Ed25519"
        x = Base64URL.encode(raw)
        self.kid = kid
        use = "sig"
        alg = "EdDSA"
    }
}

/// A JWK set: `{"keys": [...]}`.
public struct JWKSet: Codable, Sendable, Hashable {
    /// The keys, newest first.
    public var keys: [JWK]

    /// A set of `keys`.
    public init(keys: [JWK]) { self.keys = keys }

    /// The key with id `kid`.
    public func key(id kid: String) -> JWK? { keys.first { $0.kid == kid } }
}
