/// ChaCha20-Poly1305 (IETF): authenticated encryption under a 32-byte key. A sealed box is the
/// 12-byte random nonce, the ciphertext and the 16-byte tag, the same bytes on every platform.
public enum ChaChaPoly {
    /// Key length in bytes.
    public static let keyBytes = 32

    /// `plaintext` sealed under `key` (32 bytes) with a fresh random nonce.
    public static func seal(_ plaintext: [UInt8], key: [UInt8]) -> [UInt8] {
        precondition(key.count == keyBytes, "a ChaCha20-Poly1305 key is 32 bytes")
        return Backend.chachaSeal(plaintext, key: key, nonce: SecureRandom.bytes(12))
    }

    /// The plaintext of `sealed`, or nil when it was not sealed under `key` or was altered.
    public static func open(_ sealed: [UInt8], key: [UInt8]) -> [UInt8]? {
        guard key.count == keyBytes, sealed.count >= 28 else { return nil }
        return Backend.chachaOpen(sealed, key: key)
    }
}
