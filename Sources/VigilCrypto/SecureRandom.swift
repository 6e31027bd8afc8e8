/// Bytes from the operating system's CSPRNG: tokens, keys, ids.
public enum SecureRandom {
    /// `count` random bytes.
    public static func bytes(_ count: Int) -> [UInt8] { Backend.randomBytes(count) }

    /// A random 64-bit seed (for `PlanGenerator` and the like).
    public static func seed() -> UInt64 {
        bytes(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
