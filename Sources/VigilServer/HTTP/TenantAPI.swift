import Foundation
import VigilCore
import VigilCrypto
import VigilFace
import VigilHTTP
import VigilLiveness
import VigilStore

/// The tenant API: sessions (create, read, erase).
enum TenantAPI {
    static func register(_ router: inout Router, _ context: ServerContext) {
        router.add("POST", "/v1/sessions", bodyLimit: PhotoUpload.bodyLimitForOne, lane: .workers, admit: { try context.admitAPIKey($0) }) { try createSession($0, context) }
        router.add("GET", "/v1/sessions/{sessionId}") { try readSession($0, context) }
        router.add("DELETE", "/v1/sessions/{sessionId}") { try eraseSession($0, context) }
        router.add("POST", "/v1/compare", bodyLimit: PhotoUpload.bodyLimitForTwo, lane: .workers, admit: { try context.admitAPIKey($0) }) { try compare($0, context) }
        router.add("GET", "/v1/webhooks") { try readWebhook($0, context) }
        router.add("GET", "/v1/api-keys") { try listAPIKeys($0, context) }
        router.add("POST", "/v1/api-keys") { try createAPIKey($0, context) }
        router.add("DELETE", "/v1/api-keys/{keyId}") { try revokeAPIKey($0, context) }
        router.add("PUT", "/v1/webhooks", bodyLimit: 8 * 1024, admit: { try context.admitAPIKey($0) }) { try writeWebhook($0, context) }
    }

    /// Text fields and their limits (bytes).
    static func textFields(_ body: CreateSessionRequest) -> [(name: String, value: String?, limit: Int)] {
        [("ssid", body.ssid, 128), ("externalRef", body.externalRef, 256), ("locale", body.locale, 35), ("theme", body.theme, 32),
         ("redirectUrl", body.redirectUrl, 2048)]
    }

    static func createSession(_ request: HTTPRequest, _ context: ServerContext) throws -> HTTPResponse {
        let tenant = try context.tenant(request)
        let apiKey = request.bearerToken ?? ""
        let idempotencyKey = request.header("idempotency-key")
        let bodyHash = SHA256.hex(request.body)
        if let key = idempotencyKey {
            guard (1...255).contains(key.utf8.count) else { throw HTTPError(.invalidIdempotencyKey, "Idempotency-Key is 1-255 bytes") }
            if let previous = try context.stored({ () throws(StoreError) in try context.store.idempotency(tenantId: tenant.id, key: key) }),
               previous.createdAt > context.clock.now.addingTimeInterval(-IdempotencyAnswer.lifetime) {
                guard previous.requestHash == bodyHash else {
                    throw HTTPError(.idempotencyConflict, "this Idempotency-Key was used with a different body")
                }
                guard let body = IdempotencyAnswer.open(previous.body, apiKey: apiKey, idempotencyKey: key) else {
                    throw HTTPError(.idempotencyConflict, "this Idempotency-Key was used with another API key")
                }
                return HTTPResponse(status: previous.status, headers: [("Content-Type", "application/json"), ("Idempotent-Replayed", "true"),
                                                                       ("Cache-Control", "no-store")],
                                    body: body)
            }
        }
        let body = try context.decode(CreateSessionRequest.self, from: request.body, fields: CreateSessionRequest.fields)
        for (name, value, limit) in textFields(body) where (value?.utf8.count ?? 0) > limit {
            throw HTTPError(.invalidField, "field '\(name)' is longer than \(limit) bytes")
        }
        if let locale = body.locale, !isLanguageTag(locale) {
            throw HTTPError(.invalidField, "field 'locale' must be a language tag such as 'pt-BR'")
        }
        if let url = body.redirectUrl, !isRedirectURL(url) {
            throw HTTPError(.invalidField, "field 'redirectUrl' must be an absolute http(s) URL, percent-encoded")
        }
        var policy: LivenessPolicy
        switch (body.policy, body.riskLevel) {
        case (.some, .some): throw HTTPError(.invalidField, "give either 'policy' or 'riskLevel', not both")
        case (let explicit?, nil): policy = explicit
        case (nil, let level): policy = .preset(level ?? .medium)
        }
        if let document = body.document {
            guard body.policy == nil else {
                throw HTTPError(.invalidField, "give 'document' inside 'policy' when the request has a policy")
            }
            policy.document = document
        }
        var validated: LivenessPolicy
        do {
            validated = try policy.validated()
        } catch {
            throw HTTPError(.invalidPolicy, error.description)
        }
        var risk = try body.ssid.map { (ssid) throws(ServiceError) in try Velocity.assess(tenantId: tenant.id, ssid: ssid, policy: &validated, context, now: context.clock.now) }
        if body.collectLocation == true {
            risk = risk ?? SessionRisk()
            risk?.location = SessionRisk.Location(status: .missing)
        }
        let reference = try body.referenceImage.map { (image) throws(HTTPError) in
            let face = try PhotoUpload.face(image, field: "referenceImage", context)
            return ReferenceFace(descriptor: face.descriptor.bytes, deleteAfter: context.clock.now.addingTimeInterval(context.configuration.retention))
        }
        let (record, token) = context.lifecycle.newSession(tenantId: tenant.id, policy: validated) {
            $0.ssid = body.ssid
            $0.externalRef = body.externalRef
            $0.locale = body.locale
            $0.theme = body.theme
            $0.redirectUrl = body.redirectUrl
            $0.risk = risk
        }
        try context.stored { () throws(StoreError) in try context.store.insertSession(record, reference: reference) }
        let now = record.createdAt
        let created = SessionCreated(sessionId: record.id, sessionToken: token, captureUrl: "\(context.baseURL)/c/\(record.id)#\(token)",
                                     expiresAt: ISO8601DateFormatter().string(from: record.expiresAt))
        // The answer carries the session token: no cache may keep it.
        let response = HTTPResponse.json(created, status: 201, headers: [("Cache-Control", "no-store")])
        if let key = idempotencyKey {
            let sealed = IdempotencyAnswer.seal(response.body, apiKey: apiKey, idempotencyKey: key)
            let saved = IdempotencyRecord(tenantId: tenant.id, key: key, requestHash: bodyHash, status: 201, body: sealed, createdAt: now)
            do {
                try context.store.insertIdempotency(saved, replacingOlderThan: now.addingTimeInterval(-IdempotencyAnswer.lifetime))
            } catch {
                // Two requests raced on one key: this one's session stands, the other answer is the stored one.
            }
        }
        context.metrics.add("vigil_sessions_created_total")
        return response
    }

    /// A BCP 47-shaped tag: letters, digits and hyphens, starting with 2-8 letters.
    static func isLanguageTag(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...8).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }

    /// An absolute http(s) URL of URL characters only (RFC 3986: no quotes, spaces or backslashes,
    /// so it is written into JSON and links as it is).
    static func isRedirectURL(_ text: String) -> Bool {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&()*+,;=%".utf8)
        guard text.utf8.allSatisfy(allowed.contains), let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
              url.host?.isEmpty == false else { return false }
        return true
    }

    /// A session as the tenant sees it.
    struct SessionView: Encodable {
        let sessionId: String, status: SessionStatus, createdAt: Date, expiresAt: Date, updatedAt: Date
        let policy: LivenessPolicy, ssid: String?, externalRef: String?, locale: String?, theme: String?, redirectUrl: String?
        let risk: SessionRisk?
        let result: VerdictPayload?, signedResult: String?
        /// The best frame (JPEG, base64), until erased or past retention.
        let auditImage: String?

        init(_ r: SessionRecord, auditImage: AuditImage?) {
            sessionId = r.id
            status = r.status
            createdAt = r.createdAt
            expiresAt = r.expiresAt
            updatedAt = r.updatedAt
            policy = r.policy
            ssid = r.ssid
            externalRef = r.externalRef
            locale = r.locale
            theme = r.theme
            redirectUrl = r.redirectUrl
            risk = r.risk
            result = r.verdict
            signedResult = r.signedResult
            self.auditImage = auditImage.map { Data($0.jpeg).base64EncodedString() }
        }
    }

    static func owned(_ request: HTTPRequest, _ context: ServerContext) throws -> SessionRecord {
        let tenant = try context.tenant(request)
        let id = request.parameters["sessionId"] ?? ""
        // Another tenant's session answers exactly like a missing one.
        guard id.utf8.count <= 64, let record = try context.stored({ () throws(StoreError) in try context.store.session(id: id, tenantId: tenant.id) }) else {
            throw HTTPError(.sessionNotFound, "no such session")
        }
        return try context.lifecycle.expireIfDue(record)
    }

    static func readSession(_ request: HTTPRequest, _ context: ServerContext) throws -> HTTPResponse {
        let record = try owned(request, context)
        let image = try context.stored { () throws(StoreError) in try context.store.auditImage(sessionId: record.id) }
        return .json(SessionView(record, auditImage: image), headers: [("Cache-Control", "no-store")])
    }

    /// 1:1 comparison of the largest faces of two photos; nothing is stored.
    static func compare(_ request: HTTPRequest, _ context: ServerContext) throws -> HTTPResponse {
        _ = try context.tenant(request)
        let body = try context.decode(CompareRequest.self, from: request.body, fields: CompareRequest.fields)
        let a = try PhotoUpload.face(body.imageA, field: "imageA", context)
        let b = try PhotoUpload.face(body.imageB, field: "imageB", context)
        let match = FaceMatcher().compare(a.descriptor, b.descriptor)
        context.metrics.add("vigil_comparisons_total")
        let result = CompareResult(matched: match.matched, similarity: match.similarity, distance: match.distance, threshold: match.threshold,
                                   facesInA: a.faces, facesInB: b.faces)
        return .json(result, headers: [("Cache-Control", "no-store")])
    }

    /// Erases a session's personal data (see `SessionLifecycle.erase`); an open session is cancelled first.
    static func eraseSession(_ request: HTTPRequest, _ context: ServerContext) throws -> HTTPResponse {
        let stored = try context.lifecycle.erase(try owned(request, context))
        struct Erased: Encodable { let sessionId: String, status: SessionStatus, erased: Bool }
        return .json(Erased(sessionId: stored.id, status: stored.status, erased: true))
    }
}

extension TenantAPI {
    /// A tenant's webhook endpoint; the secret only when just made.
    struct WebhookView: Encodable {
        let url: String?
        let configured: Bool
        let secret: String?
    }

    /// Body of `PUT /v1/webhooks`.
    struct WebhookUpdate: Decodable {
        let url: String?
        let rotateSecret: Bool?
    }

    static func readWebhook(_ request: HTTPRequest, _ context: ServerContext) throws -> HTTPResponse {
        let tenant = try context.tenant(request)
        return .json(WebhookView(url: tenant.webhookURL, configured: tenant.webhookURL != nil, secret: nil))
    }

    /// Sets or clears (`"url": null`) the endpoint; a secret is made with the first URL and on
    /// `rotateSecret`, and shown once.
    static func writeWebhook(_ request: HTTPRequest, _ context: ServerContext) throws -> HTTPResponse {
        var tenant = try context.tenant(request)
        let update = try context.decode(WebhookUpdate.self, from: request.body, fields: ["url", "rotateSecret"])
        if update.url == nil, update.rotateSecret == true {
            throw HTTPError(.invalidField, "rotateSecret needs a url")
        }
        var newSecret: String?
        if let url = update.url {
            if let refusal = WebhookTarget.refusal(url, allowPrivate: context.configuration.allowPrivateWebhooks) {
                throw HTTPError(.invalidWebhookURL, refusal)
            }
            tenant.webhookURL = url
            if tenant.webhookSecret == nil || update.rotateSecret == true { newSecret = "whsec_" + Base64URL.encode(SecureRandom.bytes(32)) }
        } else {
            tenant.webhookURL = nil
            tenant.webhookSecret = nil
        }
        if let newSecret { tenant.webhookSecret = newSecret }
        try context.stored { () throws(StoreError) in try context.store.updateTenant(tenant) }
        return .json(WebhookView(url: tenant.webhookURL, configured: tenant.webhookURL != nil, secret: newSecret), headers: [("Cache-Control", "no-store")])
    }
}
