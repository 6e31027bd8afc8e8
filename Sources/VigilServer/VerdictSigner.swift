import Foundation
import VigilCore
import VigilCrypto
import VigilStore

/// Signs results with the newest active Ed25519 key and publishes every kept key as JWKS.
final class VerdictSigner: @unchecked Sendable {
    // Invariant: `active` and `published` are only touched with `lock` held.
    private let lock = NSLock()
    private let store: any Store
    private var active: (kid: String, key: Ed25519PrivateKey)
    private var published: JWKSet

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

    /// Re-reads the keys (after a rotation by the CLI).
    func reload() throws {
        let loaded = try Self.load(store)
        lock.lock()
        (active, published) = loaded
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
        let keys = try store.signingKeys()
        guard let newest = keys.first(where: { $0.retiredAt == nil }) ?? keys.first else { throw StoreError.corrupt("no signing key") }
        let active = (newest.kid, try Ed25519PrivateKey(seed: newest.seed))
        return (active, JWKSet(keys: keys.map { JWK(ed25519PublicKey: $0.publicKey, kid: $0.kid) }))
    }
}
