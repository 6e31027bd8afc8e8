#if canImport(CryptoKit)
import CryptoKit
import Foundation

/// CryptoKit, on Apple platforms. Not compiled on Linux: keep it to the same small surface as
/// `SodiumBackend.swift`.
enum Backend {
    static func sha256(_ bytes: [UInt8]) -> [UInt8] { Array(CryptoKit.SHA256.hash(data: bytes)) }

    static func hmacSHA256(message: [UInt8], key: [UInt8]) -> [UInt8] {
        Array(HMAC<CryptoKit.SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let status = SecRandomCopyBytes(kSecRandomDefault, count, &out)
        precondition(status == errSecSuccess, "SecRandomCopyBytes failed")
        return out
    }

    static func ed25519KeyPair(seed: [UInt8]) -> (publicKey: [UInt8], secretKey: [UInt8]) {
        // CryptoKit keys are made from the seed; the seed stands in for the expanded key.
        let key = try! Curve25519.Signing.PrivateKey(rawRepresentation: seed)
        return (Array(key.publicKey.rawRepresentation), seed)
    }

    static func ed25519Sign(_ message: [UInt8], secretKey: [UInt8], seed: [UInt8]) -> [UInt8] {
        let key = try! Curve25519.Signing.PrivateKey(rawRepresentation: seed)
        return Array(try! key.signature(for: message))
    }

    static func ed25519Verify(_ signature: [UInt8], message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
        return key.isValidSignature(signature, for: message)
    }

    /// nonce || ciphertext || tag, as `ChaChaPoly.SealedBox.combined`.
    static func chachaSeal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8]) -> [UInt8] {
        let box = try! CryptoKit.ChaChaPoly.seal(plaintext, using: SymmetricKey(data: key), nonce: try! CryptoKit.ChaChaPoly.Nonce(data: nonce))
        return Array(box.combined)
    }

    static func chachaOpen(_ sealed: [UInt8], key: [UInt8]) -> [UInt8]? {
        guard let box = try? CryptoKit.ChaChaPoly.SealedBox(combined: sealed),
              let plain = try? CryptoKit.ChaChaPoly.open(box, using: SymmetricKey(data: key)) else { return nil }
        return Array(plain)
    }
}
#endif
