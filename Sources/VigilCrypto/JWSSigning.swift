import VigilCore

extension CompactJWS {
    /// A JWS over `payload` signed with Ed25519 (`alg: EdDSA`), naming `kid`.
    public static func signed(payload: [UInt8], key: Ed25519PrivateKey, kid: String, typ: String? = "JWT") -> CompactJWS {
        let header = Header(alg: "EdDSA", kid: kid, typ: typ)
        let segments = signingInput(header: header, payload: payload)
        let signature = key.signature(for: Array("\(segments.header).\(segments.payload)".utf8))
        return CompactJWS(header: header, payload: payload, signature: signature)
    }

    /// Whether this JWS is `alg: EdDSA` and signed by `key`.
    public func isSigned(by key: Ed25519PublicKey) -> Bool {
        header.alg == "EdDSA" && key.isValidSignature(signature, for: signingInput)
    }
}

extension JWK {
    /// The Ed25519 public key this JWK holds, when it is one.
    public var ed25519PublicKey: Ed25519PublicKey? {
        guard kty == "OKP", crv == "Ed25519", let raw = Base64URL.decode(x) else { return nil }
        return try? Ed25519PublicKey(rawRepresentation: raw)
    }
}
