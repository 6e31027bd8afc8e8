import Foundation
import VigilCrypto

/// The stored answer of an `Idempotency-Key`: sealed (ChaCha20-Poly1305) under a key derived
/// from the API key that made it, so the session token it carries is never at rest in the clear,
/// and only a caller holding that API key can replay it. Kept for `lifetime`.
enum IdempotencyAnswer {
    /// How long an answer is replayed (and then purged).
    static let lifetime: TimeInterval = 24 * 3600

    /// The sealing key for `idempotencyKey` of a caller presenting `apiKey`.
    static func key(apiKey: String, idempotencyKey: String) -> [UInt8] {
        HMACSHA256.authenticate(Array("vigil idempotency\u{0}\(idempotencyKey)".utf8), key: Array(apiKey.utf8))
    }

    /// `body` sealed for storage.
    static func seal(_ body: [UInt8], apiKey: String, idempotencyKey: String) -> [UInt8] {
        ChaChaPoly.seal(body, key: key(apiKey: apiKey, idempotencyKey: idempotencyKey))
    }

    /// The stored answer, or nil when another API key made it.
    static func open(_ sealed: [UInt8], apiKey: String, idempotencyKey: String) -> [UInt8]? {
        ChaChaPoly.open(sealed, key: key(apiKey: apiKey, idempotencyKey: idempotencyKey))
    }
}
