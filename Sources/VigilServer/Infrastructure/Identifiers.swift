import VigilCore
import VigilCrypto

/// Random identifiers and secrets. Ids are public; tokens and API keys are secrets stored only as
/// their SHA-256.
enum Identifiers {
    /// A public id with a type prefix ("ses_", "tn_", "evt_"): 96 random bits.
    static func id(_ prefix: String) -> String { prefix + Base64URL.encode(SecureRandom.bytes(12)) }
    /// A session token: 256 random bits, base64url.
    static func sessionToken() -> String { Base64URL.encode(SecureRandom.bytes(32)) }
    /// An API key: "vk_live_" and 256 random bits.
    static func apiKey() -> String { "vk_live_" + Base64URL.encode(SecureRandom.bytes(32)) }
    /// How a secret is stored and looked up.
    static func hash(_ secret: String) -> String { SHA256.hex(Array(secret.utf8)) }
}
