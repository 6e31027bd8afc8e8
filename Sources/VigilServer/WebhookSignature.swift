import VigilCrypto

/// The `Vigil-Signature` header: `t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
public enum WebhookSignature {
    /// The header value for `body` sent at `timestamp` (Unix seconds).
    public static func header(secret: String, timestamp: Int, body: [UInt8]) -> String {
        let mac = HMACSHA256.authenticate(Array("\(timestamp).".utf8) + body, key: Array(secret.utf8))
        return "t=\(timestamp),v1=\(Hex.encode(mac))"
    }
}
