import Foundation
import Synchronization
import VigilCore
import VigilFace
import VigilHTTP
import VigilLiveness
import VigilStore

/// What every handler works with: the store, the signer, live engines, analyzers, settings.
final class ServerContext: Sendable {
    let configuration: ServerConfiguration
    private let base = Mutex("")
    let store: any Store
    let signer: VerdictSigner
    let live = LiveSessions()
    let statusAnswers = StatusCache()
    let analyzers: AnalyzerPool
    let metrics = Metrics()
    let logger: any Logger
    private let perIP: RateLimiter, perAPIKey: RateLimiter, perToken: RateLimiter, authFailures: RateLimiter

    init(configuration: ServerConfiguration, store: any Store, signer: VerdictSigner, analyzers: AnalyzerPool, logger: any Logger) {
        self.configuration = configuration
        self.logger = logger
        let limits = configuration.rateLimits
        perIP = RateLimiter(.init(burst: limits.perIP.burst, perSecond: limits.perIP.perSecond))
        perAPIKey = RateLimiter(.init(burst: limits.perAPIKey.burst, perSecond: limits.perAPIKey.perSecond))
        perToken = RateLimiter(.init(burst: limits.perSessionToken.burst, perSecond: limits.perSessionToken.perSecond))
        authFailures = RateLimiter(.init(burst: limits.authFailuresPerIP.burst, perSecond: limits.authFailuresPerIP.perSecond))
        self.store = store
        self.signer = signer
        self.analyzers = analyzers
    }

    /// The public base URL (set once the port is known, before the first request).
    var baseURL: String {
        get { base.withLock { $0 } }
        set { base.withLock { $0 = newValue } }
    }

    /// A store call, its failure answered as 503 (the database is the server's problem, not the caller's).
    func stored<T>(_ body: () throws(StoreError) -> T) throws(HTTPError) -> T {
        do {
            return try body()
        } catch .staleVersion {
            throw HTTPError(.concurrentUpdate, "the session changed meanwhile; retry")
        } catch {
            throw HTTPError(.storageUnavailable, "the database could not complete the request", cause: "\(error)")
        }
    }

    /// `payload` signed with the active key: its JSON and compact JWS.
    func sign(_ payload: VerdictPayload) throws(HTTPError) -> (json: [UInt8], jws: String) {
        do {
            return try signer.sign(payload)
        } catch {
            throw HTTPError(.signingFailed, "the result could not be signed", cause: "\(error)")
        }
    }

    /// 429 with `Retry-After`.
    static func tooMany(_ seconds: Int, _ what: String) -> HTTPError {
        HTTPError(.rateLimited, "too many \(what); retry in \(seconds) s", headers: [("Retry-After", String(seconds))])
    }

    /// The per-IP limit, and the lock-out of an IP that failed authentication too often.
    private func admit(_ request: HTTPRequest) throws(HTTPError) {
        guard configuration.rateLimits.enabled else { return }
        if let wait = perIP.take(request.remoteAddress) { throw Self.tooMany(wait, "requests from this address") }
        if let wait = authFailures.wait(request.remoteAddress) { throw Self.tooMany(wait, "failed authentications from this address") }
    }

    /// Counts a failed authentication against the caller's IP.
    private func failedAuthentication(_ request: HTTPRequest, _ error: HTTPError) -> HTTPError {
        guard configuration.rateLimits.enabled else { return error }
        if let wait = authFailures.take(request.remoteAddress) { return Self.tooMany(wait, "failed authentications from this address") }
        return error
    }

    /// The tenant whose API key is the request's bearer token.
    func tenant(_ request: HTTPRequest) throws(HTTPError) -> Tenant {
        try admit(request)
        guard let key = request.bearerToken else {
            throw HTTPError(.missingAPIKey, "send the API key as 'Authorization: Bearer <key>'", headers: [("WWW-Authenticate", "Bearer")])
        }
        let hash = Identifiers.hash(key)
        guard key.hasPrefix("vk_"), key.utf8.count <= 128, let tenant = try stored({ () throws(StoreError) in try store.tenant(apiKeyHash: hash) }) else {
            throw failedAuthentication(request, HTTPError(.invalidAPIKey, "the API key is not valid", headers: [("WWW-Authenticate", "Bearer")]))
        }
        request.notes.tenantId = tenant.id
        if configuration.rateLimits.enabled, let wait = perAPIKey.take(hash) { throw Self.tooMany(wait, "requests with this API key") }
        return tenant
    }

    /// The session whose token is the request's bearer token, expired first when its time is up.
    func deviceSession(_ request: HTTPRequest) throws(HTTPError) -> SessionRecord {
        let record = try authenticateDevice(request) { (hash) throws(StoreError) in try store.session(tokenHash: hash) }
        request.notes.tenantId = record.tenantId
        return try expireIfDue(record)
    }

    /// The head of that session (not expired here: the caller checks `expiresAt`).
    func deviceHead(_ request: HTTPRequest) throws(HTTPError) -> SessionHead {
        let head = try authenticateDevice(request) { (hash) throws(StoreError) in try store.sessionHead(tokenHash: hash) }
        request.notes.tenantId = head.tenantId
        return head
    }

    /// What `read` finds by the hash of the request's session token, after the rate limits.
    private func authenticateDevice<T>(_ request: HTTPRequest, read: (String) throws(StoreError) -> T?) throws(HTTPError) -> T {
        try admit(request)
        guard let token = request.bearerToken, token.utf8.count <= 128 else {
            throw failedAuthentication(request, HTTPError(.invalidToken, "the session token is not valid", headers: [("WWW-Authenticate", "Bearer")]))
        }
        let hash = Identifiers.hash(token)
        guard let found = try stored({ () throws(StoreError) in try read(hash) }) else {
            throw failedAuthentication(request, HTTPError(.invalidToken, "the session token is not valid", headers: [("WWW-Authenticate", "Bearer")]))
        }
        if configuration.rateLimits.enabled, let wait = perToken.take(hash) { throw Self.tooMany(wait, "requests with this session token") }
        return found
    }

    /// Marks an unfinished session past `expiresAt` as expired (once) and returns it as stored.
    func expireIfDue(_ record: SessionRecord, now: Date = Date()) throws(HTTPError) -> SessionRecord {
        guard !record.status.isFinal, now >= record.expiresAt else { return record }
        var expired = record
        expired.status = .expired
        expired.updatedAt = now
        expired.engineState = nil
        live.remove(record.id)
        do {
            return try store.updateSession(expired, enqueue: try event("session.expired", for: expired))
        } catch .staleVersion {
            // Another request finished or expired it first: use what it stored.
            return try stored({ () throws(StoreError) in try store.session(id: record.id, tenantId: record.tenantId) }) ?? expired
        } catch {
            throw HTTPError(.storageUnavailable, "the database could not complete the request")
        }
    }

    /// The webhook delivery of `name` for `record`, when its tenant has a webhook configured.
    func event(_ name: String, for record: SessionRecord, result: VerdictPayload? = nil) throws(StoreError) -> WebhookDelivery? {
        guard try store.tenant(id: record.tenantId)?.webhookURL != nil else { return nil }
        return WebhookEvent.delivery(name, session: record, result: result)
    }

    /// Decodes a JSON object body strictly: only `fields` at the top level, types as `T` says.
    func decode<T: Decodable>(_ type: T.Type, from body: [UInt8], fields: Set<String>) throws(HTTPError) -> T {
        guard !body.isEmpty else { throw HTTPError(.invalidJSON, "the body must be a JSON object") }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            throw HTTPError(.invalidJSON, "the body is not a JSON object")
        }
        if let unknown = object.keys.sorted().first(where: { !fields.contains($0) }) {
            throw HTTPError(.unknownField, "unknown field '\(unknown)'")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(body))
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw HTTPError(.invalidField, "field '\(Self.path(context))' has the wrong type")
        } catch let DecodingError.dataCorrupted(context) {
            throw HTTPError(.invalidField, "field '\(Self.path(context))' has an invalid value")
        } catch let DecodingError.keyNotFound(key, context) {
            throw HTTPError(.missingField, "field '\((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))' is required")
        } catch {
            throw HTTPError(.invalidJSON, "the body does not decode")
        }
    }

    private static func path(_ context: DecodingError.Context) -> String {
        context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }
}
