/// HMAC-SHA256: webhook signatures.
public enum HMACSHA256 {
    /// The 32-byte MAC of `message` under `key` (any length).
    public static func authenticate(_ message: some Collection<UInt8>, key: some Collection<UInt8>) -> [UInt8] {
        Backend.hmacSHA256(message: Array(message), key: Array(key))
    }

    /// Whether `mac` is the MAC of `message` under `key`, compared in constant time.
    public static func isValid(_ mac: some Collection<UInt8>, for message: some Collection<UInt8>, key: some Collection<UInt8>) -> Bool {
        ConstantTime.equals(Array(mac), authenticate(message, key: key))
    }
}
