import Foundation
import VigilCore
import VigilCrypto
import VigilStore

/// Signs results with the newest active Ed25519 key and publishes every key not revoked as JWKS.
/// The keys are read again every `refreshInterval` (`BackgroundWorker` calls `refreshIfDue`), so a
/// rotation or revocation by the CLI, or by another node on the same database, takes effect on
/// every running server within seconds.
final class VerdictSigner: @unchecked Sendable {
    /// How often the key table is read again (seconds).
    static let refreshInterval: TimeInterval = 5

    // Invariant: `active`, `published` and `loadedAt` are only touched with `lock` held.
    private let lock = NSLock()
    private let store: any Store
    private var active: (kid: String, key: Ed25519PrivateKey)
    private var published: JWKSet
    private var loadedAt = Date()

    /// Loads the keys, making the first one on a fresh store.
    init(store: any Store) throws {
        self.store = store
        if try store.signingKeys().isEmpty { try store.insertSigningKey(Self.newKey()) }
        (active, published) = try Self.load(store)
    }

    /// Makes a new key the active one; the old ones stay published.
    static func rotate(in store: any Store) throws -> String {
        let key = newKey()
        try store.rotateSigningKey(to: key, at: Date())
        return key.kid
    }

    /// Withdraws key `kid` from the JWKS; when it was the active key a new one takes over.
    /// Returns the active kid afterwards, or nil when there is no such key.
    static func revoke(kid: String, in store: any Store) throws -> String? {
        guard try store.revokeSigningKey(kid: kid, replacement: newKey(), at: Date()) else { return nil }
        return try load(store).0.0
    }

    /// Reads the keys again when the last read is `refreshInterval` old (a failed read keeps the
    /// keys in hand and is thrown to the caller to log).
    func refreshIfDue(now: Date = Date()) throws {
        lock.lock()
        let due = now.timeIntervalSince(loadedAt) >= Self.refreshInterval
        lock.unlock()
        guard due else { return }
        let loaded = try Self.load(store)
        lock.lock()
        (active, published) = loaded
        loadedAt = now
        lock.unlock()
    }

    /// The payload's JSON (sorted keys) and its compact JWS: the stored result is exactly what
    /// was signed.
    func sign(_ payload: VerdictPayload) throws -> (json: [UInt8], jws: String) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let bytes = [UInt8](try encoder.encode(payload))
        lock.lock()
        let (kid, key) = active
        lock.unlock()
        return (bytes, CompactJWS.signed(payload: bytes, key: key, kid: kid).compact)
    }

    /// The public keys.
    var jwks: JWKSet {
        lock.lock()
        defer { lock.unlock() }
        return published
    }

    private static func newKey() -> SigningKeyRecord {
        let key = Ed25519PrivateKey()
        return SigningKeyRecord(kid: "k_" + Base64URL.encode(SecureRandom.bytes(9)), seed: key.seed,
                                publicKey: key.publicKey.rawRepresentation, createdAt: Date())
    }

    private static func load(_ store: any Store) throws -> ((String, Ed25519PrivateKey), JWKSet) {
        let keys = try store.signingKeys().filter { $0.revokedAt == nil }
        guard let newest = keys.first(where: { $0.retiredAt == nil }) ?? keys.first else { throw StoreError.corrupt("no signing key") }
        let active = (newest.kid, try Ed25519PrivateKey(seed: newest.seed))
        return (active, JWKSet(keys: keys.map { JWK(ed25519PublicKey: $0.publicKey, kid: $0.kid) }))
    }
}
