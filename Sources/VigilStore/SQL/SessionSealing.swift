import Foundation
import VigilCore
import VigilCrypto

/// What a session row holds of a person (its engine state, with the face's descriptors while it
/// runs; its risk signals; what was read of a document; the result and its signature) is sealed with ChaCha20-Poly1305 under the session's own random key,
/// kept apart in `session_keys`, until the session's personal data is erased: erasing writes the
/// row plain and deletes the key. PostgreSQL keeps a row's old versions in the table's free space
/// after `VACUUM`, and every frame writes one; sealed, without their key, they say nothing. The
/// key table is small (a row per session not yet erased) and is rewritten whole by the reclaim.
/// Values written before sealing existed, and erased ones, are plain: a sealed value is told by
/// its marker.
enum SessionSealing {
    /// A new session's key.
    static func newKey() -> [UInt8] { SecureRandom.bytes(ChaChaPoly.keyBytes) }

    /// The start of a sealed text value (base64url of the sealed box follows).
    static let textMarker = "sealed:"
    /// The start of a sealed binary value (the sealed box follows).
    static let bytesMarker = Array("VSEAL1".utf8)

    /// `text` sealed under `key`.
    static func seal(_ text: String, key: [UInt8]) -> String {
        textMarker + Base64URL.encode(ChaChaPoly.seal(Array(text.utf8), key: key))
    }

    /// `bytes` sealed under `key`.
    static func seal(_ bytes: [UInt8], key: [UInt8]) -> [UInt8] {
        bytesMarker + ChaChaPoly.seal(bytes, key: key)
    }

    /// `stored` as written: opened under `key` when sealed, as it is when plain; nil when it is
    /// sealed and `key` is missing or does not open it.
    static func open(_ stored: String, key: [UInt8]?) -> String? {
        guard stored.hasPrefix(textMarker) else { return stored }
        guard let key, let box = Base64URL.decode(stored.dropFirst(textMarker.count)), let plain = ChaChaPoly.open(box, key: key) else { return nil }
        return String(decoding: plain, as: UTF8.self)
    }

    /// `stored` as written: opened under `key` when sealed, as it is when plain.
    static func open(_ stored: [UInt8], key: [UInt8]?) -> [UInt8]? {
        guard stored.starts(with: bytesMarker) else { return stored }
        guard let key else { return nil }
        return ChaChaPoly.open(Array(stored.dropFirst(bytesMarker.count)), key: key)
    }
}
