#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 network in CIDR notation ("10.0.0.0/8", "fd00::/8", or one address), for
/// telling which peers are trusted proxies.
public struct IPRange: Sendable, Equatable {
    private let network: [UInt8]
    private let prefix: Int

    /// Parses `cidr`; nil when it is not an address with an optional prefix length.
    public init?(_ cidr: String) {
        let parts = cidr.split(separator: "/", maxSplits: 1).map(String.init)
        guard let first = parts.first, let bytes = Self.bytes(first) else { return nil }
        let prefix = parts.count == 2 ? Int(parts[1]) : bytes.count * 8
        guard let prefix, (0...(bytes.count * 8)).contains(prefix) else { return nil }
        network = bytes
        self.prefix = prefix
    }

    /// Whether `address` (text) is in this network; mapped IPv4 addresses ("::ffff:10.0.0.1")
    /// count as IPv4.
    public func contains(_ address: String) -> Bool {
        guard let bytes = Self.bytes(address), bytes.count == network.count else { return false }
        for bit in 0..<prefix where (bytes[bit / 8] ^ network[bit / 8]) & (0x80 >> UInt8(bit % 8)) != 0 { return false }
        return true
    }

    /// The address's bytes (4 or 16), IPv4-mapped IPv6 as IPv4; nil when it is not an address.
    static func bytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        return bytes.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] ? Array(bytes.suffix(4)) : bytes
    }

    /// The client's address: the peer's, unless the peer is one of `trusted`; then the nearest
    /// address in `forwardedFor` (X-Forwarded-For, each proxy appending the one it saw) that is
    /// not a trusted proxy. A hop that is not an address (`unknown`, `203.0.113.1:5555`, an
    /// empty one) ends the walk as an untrusted client of its own: never the proxy that passed
    /// it on, whose loopback address would pass for this host and whose rate-limit bucket it
    /// would share. It is named `unparsed:` and the hop's first 64 letters, digits and `.:-_`.
    public static func client(peer: String, forwardedFor: String?, trusted: [IPRange]) -> String {
        guard let forwardedFor, trusted.contains(where: { $0.contains(peer) }) else { return peer }
        var client = peer
        for hop in forwardedFor.split(separator: ",", omittingEmptySubsequences: false).reversed() {
            let address = hop.trimmingCharacters(in: .whitespaces)
            guard bytes(address) != nil else { return unparsed(address) }
            client = address
            if !trusted.contains(where: { $0.contains(address) }) { break }
        }
        return client
    }

    /// The name of a client known only by a hop that is not an address.
    static func unparsed(_ hop: String) -> String {
        let kept = hop.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || ".:-_".unicodeScalars.contains($0)) }
        return "unparsed:" + String(String.UnicodeScalarView(kept.prefix(64)))
    }
}
