import VigilCore
import VigilCrypto

/// Random identifiers and secrets. Ids are public; tokens and API keys are secrets stored only as
/// their SHA-256.
enum Identifiers {
    /// A public id with a type prefix ("ses_", "tn_", "evt_"): 96 random bits.
    static func id(_ prefix: String) -> String { prefix + Base64URL.encode(SecureRandom.bytes(12)) }
    /// A session id: "ses_", the random part of its tenant's id, and 96 random bits. The capture
    /// page reads its tenant's frame origins from the id alone, so that its answer is the same
    /// whether or not the session exists.
    static func sessionId(tenantId: String) -> String {
        let tenantPart = tenantId.hasPrefix("tn_") && tenantId.utf8.count == 19 ? String(tenantId.dropFirst(3)) : ""
        return id("ses_" + tenantPart)
    }
    /// The tenant a session id names (nil for ids of another shape, such as older ones).
    static func tenantId(ofSession id: String) -> String? {
        guard id.hasPrefix("ses_"), id.utf8.count == 36 else { return nil }
        return "tn_" + id.dropFirst(4).prefix(16)
    }
    /// A session token: 256 random bits, base64url.
    static func sessionToken() -> String { Base64URL.encode(SecureRandom.bytes(32)) }
    /// An API key: "vk_live_" and 256 random bits.
    static func apiKey() -> String { "vk_live_" + Base64URL.encode(SecureRandom.bytes(32)) }
    /// How a secret is stored and looked up.
    static func hash(_ secret: String) -> String { SHA256.hex(Array(secret.utf8)) }
}
