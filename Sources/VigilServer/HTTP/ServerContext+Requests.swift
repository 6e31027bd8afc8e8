import Foundation
import VigilCore
import VigilHTTP
import VigilStore

/// What handlers read from a request through the context: the caller (API key or session
/// token, after the rate limits) and strictly decoded JSON bodies.
extension ServerContext {
    /// 429 with `Retry-After`.
    static func tooMany(_ seconds: Int, _ what: String) -> HTTPError {
        HTTPError(.rateLimited, "too many \(what); retry in \(seconds) s", headers: [("Retry-After", String(seconds))])
    }

    /// The per-IP limit, and the lock-out of an IP that failed authentication too often.
    private func admit(_ request: HTTPRequest) throws(HTTPError) {
        guard configuration.rateLimits.enabled else { return }
        if let wait = perIP.take(request.remoteAddress) { throw Self.tooMany(wait, "requests from this address") }
        try refuseLockedOut(request)
    }

    /// The lock-out of an IP that failed authentication too often (on the headers too, where
    /// the per-IP limit is left to the handler, which takes it once).
    private func refuseLockedOut(_ request: HTTPRequest) throws(HTTPError) {
        if configuration.rateLimits.enabled, let wait = authFailures.wait(request.remoteAddress) {
            throw Self.tooMany(wait, "failed authentications from this address")
        }
    }

    /// Counts a failed authentication against the caller's IP.
    private func failedAuthentication(_ request: HTTPRequest, _ error: HTTPError) -> HTTPError {
        guard configuration.rateLimits.enabled else { return error }
        if let wait = authFailures.take(request.remoteAddress) { return Self.tooMany(wait, "failed authentications from this address") }
        return error
    }

    /// The tenant whose API key is the request's bearer token, after the rate limits (taken on
    /// the headers already where the route has an admission).
    func tenant(_ request: HTTPRequest) throws -> Tenant {
        if !request.admittedOnHeaders { try admit(request) }
        let hash = try bearerHash(request, apiKey: true)
        guard let tenant = try stored({ () throws(StoreError) in try store.tenant(apiKeyHash: hash) }) else {
            throw failedAuthentication(request, Self.invalidAPIKey)
        }
        request.notes.tenantId = tenant.id
        if !request.admittedOnHeaders { try limitAPIKey(hash) }
        return tenant
    }

    private func limitAPIKey(_ hash: String) throws(HTTPError) {
        if configuration.rateLimits.enabled, let wait = perAPIKey.take(hash) { throw Self.tooMany(wait, "requests with this API key") }
    }

    private func limitToken(_ hash: String) throws(HTTPError) {
        if configuration.rateLimits.enabled, let wait = perToken.take(hash) { throw Self.tooMany(wait, "requests with this session token") }
    }

    /// On the headers of a tenant request with a large body: the per-IP limit, then its bearer
    /// token is a tenant's API key, so that no stranger's body is read, then the key's limit, all
    /// before the body is read and queued. A refusal here counts as a failure. The handler
    /// authenticates again without taking the limits twice. Returns the key's hash.
    @discardableResult
    func admitAPIKey(_ request: HTTPRequest) throws -> String {
        try admit(request)
        let hash = try bearerHash(request, apiKey: true)
        guard try stored({ () throws(StoreError) in try store.tenant(apiKeyHash: hash) }) != nil else {
            throw failedAuthentication(request, Self.invalidAPIKey)
        }
        try limitAPIKey(hash)
        return hash
    }

    /// On the headers of a device request with a body: the per-IP limit, its session token, and
    /// the token's limit, before the body is read and queued.
    private func admitToken(_ request: HTTPRequest) throws -> SessionHead {
        try admit(request)
        let hash = try bearerHash(request, apiKey: false)
        guard let head = try stored({ () throws(StoreError) in try store.sessionHead(tokenHash: hash) }) else {
            throw failedAuthentication(request, Self.invalidToken)
        }
        try limitToken(hash)
        return head
    }

    /// On a document photo's headers (`apiKey`: a tenant's one-off read, else a session's
    /// document step): the caller and its rate limits, then room for another read on this node
    /// and for this caller (`DocumentAdmission`), so that document reads never take the threads
    /// or the memory that frames need. Refused: 503 `server_busy` with when to send again, unread.
    func admitDocument(_ request: HTTPRequest, apiKey: Bool) throws {
        let caller = apiKey ? try admitAPIKey(request) : try admitToken(request).id
        if let ms = documents.admit(caller: caller) {
            metrics.add("vigil_documents_refused_busy_total")
            throw Self.busy(ms, "this server is reading as many documents as it can; send the photo again later")
        }
    }

    /// On a frame's headers: the per-IP limit, its session token and the token's limit, then
    /// this node has room for the session and the frame within the session's share
    /// (`FrameAdmission`). A frame the node has no room for is answered 503 `server_busy` with
    /// when to send again, unread; a finished session's frame goes on to the handler, which says
    /// it is finished.
    func admitFrame(_ request: HTTPRequest) throws {
        let head = try admitToken(request)
        guard !head.status.isFinal else { return }
        switch admission.admit(sessionId: head.id, at: clock.now) {
        case .accept:
            return
        case .refuseSession(let ms):
            metrics.add("vigil_frames_refused_total{reason=\"session_waits\"}")
            throw Self.busy(ms, "this server is serving as many sessions as it can; the capture starts when one finishes")
        case .shed(let ms):
            metrics.add("vigil_frames_refused_total{reason=\"frame_shed\"}")
            throw Self.busy(ms, "this server is at its frame capacity; send the next frame later")
        }
    }

    /// 503 `server_busy` with `Retry-After` (whole seconds, as HTTP has it) and `retryAfterMs`.
    static func busy(_ milliseconds: Int, _ message: String) -> HTTPError {
        HTTPError(.serverBusy, message, headers: [("Retry-After", String(max(1, (milliseconds + 999) / 1000)))], retryAfterMs: milliseconds)
    }

    /// The hash of the request's bearer token when it has the shape of an API key (`apiKey`) or
    /// of a session token; otherwise the refusal (a counted failure, except a missing API key).
    private func bearerHash(_ request: HTTPRequest, apiKey: Bool) throws(HTTPError) -> String {
        guard let token = request.bearerToken else { throw apiKey ? Self.missingAPIKey : failedAuthentication(request, Self.invalidToken) }
        guard token.utf8.count <= 128, !apiKey || token.hasPrefix("vk_") else {
            throw failedAuthentication(request, apiKey ? Self.invalidAPIKey : Self.invalidToken)
        }
        return Identifiers.hash(token)
    }

    private static let missingAPIKey = HTTPError(.missingAPIKey, "send the API key as 'Authorization: Bearer <key>'", headers: [("WWW-Authenticate", "Bearer")])
    private static let invalidAPIKey = HTTPError(.invalidAPIKey, "the API key is not valid", headers: [("WWW-Authenticate", "Bearer")])
    private static let invalidToken = HTTPError(.invalidToken, "the session token is not valid", headers: [("WWW-Authenticate", "Bearer")])

    /// The session whose token is the request's bearer token, expired first when its time is up.
    func deviceSession(_ request: HTTPRequest) throws -> SessionRecord {
        let record = try authenticateDevice(request) { (hash) throws(StoreError) in try store.session(tokenHash: hash) }
        request.notes.tenantId = record.tenantId
        return try lifecycle.expireIfDue(record)
    }

    /// That session, refused when it is over (`SessionLifecycle.finished`): what every request
    /// that changes a session starts from.
    func openDeviceSession(_ request: HTTPRequest) throws -> SessionRecord {
        let record = try deviceSession(request)
        guard !record.status.isFinal else { throw SessionLifecycle.finished(record) }
        return record
    }

    /// The head of that session (not expired here: the caller checks `expiresAt`).
    func deviceHead(_ request: HTTPRequest) throws -> SessionHead {
        let head = try authenticateDevice(request) { (hash) throws(StoreError) in try store.sessionHead(tokenHash: hash) }
        request.notes.tenantId = head.tenantId
        return head
    }

    /// What `read` finds by the hash of the request's session token, after the rate limits
    /// (taken on the headers already where the route has an admission).
    private func authenticateDevice<T>(_ request: HTTPRequest, read: (String) throws(StoreError) -> T?) throws -> T {
        if !request.admittedOnHeaders { try admit(request) }
        let hash = try bearerHash(request, apiKey: false)
        guard let found = try stored({ () throws(StoreError) in try read(hash) }) else {
            throw failedAuthentication(request, Self.invalidToken)
        }
        if !request.admittedOnHeaders { try limitToken(hash) }
        return found
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
