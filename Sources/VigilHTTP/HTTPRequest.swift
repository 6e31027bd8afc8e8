import Foundation

/// One HTTP request, read whole (its body within the route's limit).
public struct HTTPRequest: Sendable {
    /// The method, upper case ("GET").
    public var method: String
    /// The path without the query ("/v1/sessions/abc").
    public var path: String
    /// Query arguments, decoded.
    public var query: [String: String]
    /// Header values by lower-cased name; repeated headers joined with ", ".
    public var headers: [String: String]
    /// The body bytes.
    public var body: [UInt8]
    /// The client's IP address: the peer's, or the one a trusted proxy names in X-Forwarded-For
    /// (`HTTPServer.Configuration.trustedProxies`).
    public var remoteAddress: String
    /// The id this request is answered and logged under.
    public var requestId: String
    /// Path parameters of the matched route (`{sessionId}` -> value).
    public var parameters: [String: String] = [:]
    /// The matched route's pattern, once answered (for logs).
    public var route: String?
    /// Whether the matched route has an admission, which the server runs on the headers before
    /// the handler (`Router.admission`): what it took (rate limits) the handler does not take again.
    public var admittedOnHeaders = false
    /// When the server had read the whole request: the time since then, where a handler starts,
    /// is how long it waited for a thread.
    public var receivedAt = ContinuousClock.now
    /// What handlers learn about the request for its log line.
    public let notes = Notes()

    /// What handlers learn about a request for its log line (a reference: the handler gets a copy
    /// of the request, the server logs the original).
    public final class Notes: @unchecked Sendable {
        // Invariant: `storedTenantId` is only touched with `lock` held.
        private let lock = NSLock()
        private var storedTenantId: String?
        /// The tenant the request acted for, once authenticated.
        public var tenantId: String? {
            get { lock.withLock { storedTenantId } }
            set { lock.withLock { storedTenantId = newValue } }
        }
    }

    /// A request (the server builds these; tests may too).
    public init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:], body: [UInt8] = [],
                remoteAddress: String = "127.0.0.1", requestId: String = "test") {
        self.method = method
        self.path = path
        self.query = query
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { "\($0), \($1)" })
        self.body = body
        self.remoteAddress = remoteAddress
        self.requestId = requestId
    }

    /// The header `name` (any case).
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// Whether the peer is this host (IPv4, IPv6 or IPv4-mapped loopback). Behind a reverse proxy
    /// on the same host every visitor is.
    public var isFromLoopback: Bool { ["127.0.0.1", "::1", "::ffff:127.0.0.1"].contains(remoteAddress) }

    /// The bearer token of the `Authorization` header.
    public var bearerToken: String? {
        // Byte-wise: this runs on every authenticated request.
        guard let value = headers["authorization"]?.utf8, value.count > 7 else { return nil }
        let scheme = value.prefix(6).map { $0 | 0x20 }   // ASCII lower case
        guard scheme.elementsEqual("bearer".utf8), value.dropFirst(6).first == 0x20 else { return nil }
        let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        let token = value.dropFirst(7).drop(while: isBlank).reversed().drop(while: isBlank).reversed()
        return token.isEmpty ? nil : String(decoding: token, as: UTF8.self)
    }
}
