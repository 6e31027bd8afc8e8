/// An Ed25519 private key (RFC 8032): signs Vigil's verdicts.
public struct Ed25519PrivateKey: Sendable {
    /// The 32-byte seed the key is derived from (what is stored).
    public let seed: [UInt8]
    /// The matching public key.
    public let publicKey: Ed25519PublicKey
    private let expanded: [UInt8]   // the library's 64-byte secret key

    /// A new random key.
    public init() {
        // A 32-byte seed is always a valid key.
        try! self.init(seed: SecureRandom.bytes(32))
    }

    /// The key derived from a 32-byte `seed`.
    public init(seed: [UInt8]) throws(CryptoError) {
        guard seed.count == 32 else { throw .invalidKey("an Ed25519 seed is 32 bytes, not \(seed.count)") }
        let (publicKey, secret) = Backend.ed25519KeyPair(seed: seed)
        self.seed = seed
        self.publicKey = Ed25519PublicKey(validated: publicKey)
        expanded = secret
    }

    /// The 64-byte signature of `message`.
    public func signature(for message: some Collection<UInt8>) -> [UInt8] {
        Backend.ed25519Sign(Array(message), secretKey: expanded, seed: seed)
    }
}

/// An Ed25519 public key: verifies signatures.
public struct Ed25519PublicKey: Sendable, Hashable {
    /// The 32-byte encoded key.
    public let rawRepresentation: [UInt8]

    /// A key from its 32-byte encoding.
    public init(rawRepresentation: [UInt8]) throws(CryptoError) {
        guard rawRepresentation.count == 32 else { throw .invalidKey("an Ed25519 public key is 32 bytes, not \(rawRepresentation.count)") }
        self.rawRepresentation = rawRepresentation
    }

    init(validated raw: [UInt8]) { rawRepresentation = raw }

    /// Whether `signature` is this key's signature of `message`.
    public func isValidSignature(_ signature: some Collection<UInt8>, for message: some Collection<UInt8>) -> Bool {
        let signature = Array(signature)
        guard signature.count == 64 else { return false }
        return Backend.ed25519Verify(signature, message: Array(message), publicKey: rawRepresentation)
    }
}
