/// A deterministic, cryptographically strong random generator: the ChaCha20 keystream (RFC 8439)
/// of a 256-bit seed. Production seeds come from the system CSPRNG, so plans are unpredictable;
/// tests pass a fixed seed, so plans are reproducible.
public struct PlanGenerator: RandomNumberGenerator, Sendable {
    private var key: [UInt32]
    private let nonce: [UInt32]
    private var counter: UInt32
    private var block: [UInt32] = []
    private var index = 16

    /// A generator over `seed` (32 bytes) and an optional 12-byte nonce.
    public init(seed: [UInt8], nonce: [UInt8] = [UInt8](repeating: 0, count: 12), counter: UInt32 = 0) {
        precondition(seed.count == 32 && nonce.count == 12, "ChaCha20 needs a 32-byte key and a 12-byte nonce")
        key = Self.words(seed)
        self.nonce = Self.words(nonce)
        self.counter = counter
    }

    /// A generator seeded from the operating system's CSPRNG.
    public static func random() -> PlanGenerator {
        var system = SystemRandomNumberGenerator()
        return PlanGenerator(seed: (0..<32).map { _ in UInt8.random(in: 0...255, using: &system) })
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        if index + 1 >= 16 {
            block = Self.chachaBlock(key: key, counter: counter, nonce: nonce)
            counter &+= 1
            index = 0
        }
        defer { index += 2 }
        return UInt64(block[index]) | UInt64(block[index + 1]) << 32
    }

    /// The 64 keystream bytes of one block, as RFC 8439 serialises them.
    public static func keystream(seed: [UInt8], nonce: [UInt8], counter: UInt32) -> [UInt8] {
        chachaBlock(key: words(seed), counter: counter, nonce: words(nonce)).flatMap { w in
            (0..<4).map { UInt8(truncatingIfNeeded: w >> (8 * $0)) }
        }
    }

    private static func words(_ bytes: [UInt8]) -> [UInt32] {
        stride(from: 0, to: bytes.count, by: 4).map { i in
            (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[i + $1]) << (8 * UInt32($1)) }
        }
    }

    private static func chachaBlock(key: [UInt32], counter: UInt32, nonce: [UInt32]) -> [UInt32] {
        let initial: [UInt32] = [0x6170_7865, 0x3320_646E, 0x7962_2D32, 0x6B20_6574] + key + [counter] + nonce
        var s = initial
        func quarter(_ a: Int, _ b: Int, _ c: Int, _ d: Int) {
            s[a] &+= s[b]; s[d] ^= s[a]; s[d] = s[d] << 16 | s[d] >> 16
            s[c] &+= s[d]; s[b] ^= s[c]; s[b] = s[b] << 12 | s[b] >> 20
            s[a] &+= s[b]; s[d] ^= s[a]; s[d] = s[d] << 8 | s[d] >> 24
            s[c] &+= s[d]; s[b] ^= s[c]; s[b] = s[b] << 7 | s[b] >> 25
        }
        for _ in 0..<10 {
            quarter(0, 4, 8, 12); quarter(1, 5, 9, 13); quarter(2, 6, 10, 14); quarter(3, 7, 11, 15)
            quarter(0, 5, 10, 15); quarter(1, 6, 11, 12); quarter(2, 7, 8, 13); quarter(3, 4, 9, 14)
        }
        return zip(s, initial).map { $0 &+ $1 }
    }
}
