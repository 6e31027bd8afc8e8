import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where a webhook may be sent: `http(s)` URLs whose host resolves only to public addresses,
/// unless the operator allows private ones (`--allow-private-webhooks`). The host is resolved
/// once: the delivery connects to the address that was checked, so a name that resolves
/// differently a moment later (DNS rebinding) cannot move it to a private one.
struct WebhookTarget {
    /// The URL as the tenant set it.
    let url: String
    /// Its host (IPv6 literals without brackets) and port.
    let host: String, port: Int
    /// The checked address the delivery connects to.
    let address: String

    /// Resolves and checks `text`; the refusal says why it may not be used.
    static func pin(_ text: String, allowPrivate: Bool, resolve: (String) -> [String] = resolve) throws(Refusal) -> WebhookTarget {
        guard text.utf8.count <= 2048, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "https" || scheme == "http", let rawHost = url.host, !rawHost.isEmpty else {
            throw Refusal("the webhook URL must be an absolute http(s) URL of at most 2048 bytes")
        }
        guard url.user == nil, url.password == nil else { throw Refusal("the webhook URL must not carry credentials") }
        let host = rawHost.hasPrefix("[") && rawHost.hasSuffix("]") ? String(rawHost.dropFirst().dropLast()) : rawHost
        let addresses = resolve(host)
        guard let first = addresses.first else { throw Refusal("the webhook host '\(host)' does not resolve") }
        if !allowPrivate, let blocked = addresses.first(where: isPrivate) {
            throw Refusal("the webhook host resolves to a private, loopback or link-local address (\(blocked))")
        }
        return WebhookTarget(url: text, host: host, port: url.port ?? (scheme == "https" ? 443 : 80), address: first)
    }

    /// Why a URL is refused, nil when it may be used.
    static func refusal(_ text: String, allowPrivate: Bool) -> String? {
        do {
            _ = try pin(text, allowPrivate: allowPrivate)
            return nil
        } catch {
            return error.reason
        }
    }

    /// Why a webhook URL may not be used.
    struct Refusal: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// The addresses `host` resolves to, as text.
    static func resolve(_ host: String) -> [String] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(list) }
        var out: [String] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let current = node {
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            if current.pointee.ai_family == AF_INET {
                current.pointee.ai_addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { var a = $0.pointee.sin_addr; inet_ntop(AF_INET, &a, &buffer, socklen_t(buffer.count)) }
            } else if current.pointee.ai_family == AF_INET6 {
                current.pointee.ai_addr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { var a = $0.pointee.sin6_addr; inet_ntop(AF_INET6, &a, &buffer, socklen_t(buffer.count)) }
            }
            let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !text.isEmpty { out.append(text) }
            node = current.pointee.ai_next
        }
        return out
    }

    /// Loopback, private (RFC 1918, unique local), link-local, unspecified, CGNAT and mapped forms of them.
    static func isPrivate(_ address: String) -> Bool {
        let a = address.lowercased()
        if a.hasPrefix("::ffff:") { return isPrivate(String(a.dropFirst(7))) }
        if a.contains(":") {
            return a == "::1" || a == "::" || a.hasPrefix("fe8") || a.hasPrefix("fe9") || a.hasPrefix("fea") || a.hasPrefix("feb")
                || a.hasPrefix("fc") || a.hasPrefix("fd")
        }
        let parts = a.split(separator: ".").compactMap { Int($0) }
        guard parts.count == 4 else { return true }
        switch (parts[0], parts[1]) {
        case (10, _), (127, _), (0, _): return true
        case (169, 254): return true
        case (172, 16...31): return true
        case (192, 168): return true
        case (100, 64...127): return true
        default: return false
        }
    }
}
