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
}
#endif
