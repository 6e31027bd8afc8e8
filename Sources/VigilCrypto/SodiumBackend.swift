#if !canImport(CryptoKit)
import CSodium

/// libsodium, on platforms without CryptoKit (Linux). Every function takes and returns plain
/// byte arrays; no libsodium state outlives a call.
enum Backend {
    /// `sodium_init` once per process; it is thread-safe and idempotent.
    private static let ready: Bool = sodium_init() >= 0

    private static func start() {
        precondition(ready, "libsodium failed to initialise")
    }

    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        start()
        var out = [UInt8](repeating: 0, count: 32)
        _ = crypto_hash_sha256(&out, bytes, UInt64(bytes.count))
        return out
    }

    static func hmacSHA256(message: [UInt8], key: [UInt8]) -> [UInt8] {
        start()
        var state = crypto_auth_hmacsha256_state()
        var out = [UInt8](repeating: 0, count: 32)
        _ = crypto_auth_hmacsha256_init(&state, key, key.count)
        _ = crypto_auth_hmacsha256_update(&state, message, UInt64(message.count))
        _ = crypto_auth_hmacsha256_final(&state, &out)
        return out
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        start()
        var out = [UInt8](repeating: 0, count: count)
        randombytes_buf(&out, count)
        return out
    }

    static func ed25519KeyPair(seed: [UInt8]) -> (publicKey: [UInt8], secretKey: [UInt8]) {
        start()
        var pk = [UInt8](repeating: 0, count: 32), sk = [UInt8](repeating: 0, count: 64)
        _ = crypto_sign_seed_keypair(&pk, &sk, seed)
        return (pk, sk)
    }

    static func ed25519Sign(_ message: [UInt8], secretKey: [UInt8], seed: [UInt8]) -> [UInt8] {
        start()
        var signature = [UInt8](repeating: 0, count: 64)
        _ = crypto_sign_detached(&signature, nil, message, UInt64(message.count), secretKey)
        return signature
    }

    static func ed25519Verify(_ signature: [UInt8], message: [UInt8], publicKey: [UInt8]) -> Bool {
        start()
        return crypto_sign_verify_detached(signature, message, UInt64(message.count), publicKey) == 0
    }

    /// nonce || ciphertext || tag.
    static func chachaSeal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8]) -> [UInt8] {
        start()
        var out = [UInt8](repeating: 0, count: plaintext.count + 16)
        var length: UInt64 = 0
        _ = crypto_aead_chacha20poly1305_ietf_encrypt(&out, &length, plaintext, UInt64(plaintext.count), nil, 0, nil, nonce, key)
        return nonce + out.prefix(Int(length))
    }

    static func chachaOpen(_ sealed: [UInt8], key: [UInt8]) -> [UInt8]? {
        start()
        let nonce = Array(sealed.prefix(12)), box = Array(sealed.dropFirst(12))
        var out = [UInt8](repeating: 0, count: box.count)
        var length: UInt64 = 0
        guard crypto_aead_chacha20poly1305_ietf_decrypt(&out, &length, nil, box, UInt64(box.count), nil, 0, nonce, key) == 0 else { return nil }
        return Array(out.prefix(Int(length)))
    }
}
#endif
