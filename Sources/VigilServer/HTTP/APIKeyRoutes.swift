import Foundation
import VigilCore
import VigilHTTP
import VigilStore

/// `GET|POST /v1/api-keys` and `DELETE /v1/api-keys/{keyId}`: a tenant's own API keys, for
/// rotating them without the operator (docs/api.md, "API keys"). Only a key's prefix is shown
/// again after it is made.
extension TenantAPI {
    /// A key as the API shows it.
    struct APIKeyView: Encodable {
        let keyId: String
        let prefix: String?
        let createdAt: Date
        let revokedAt: Date?
        /// The key itself: only in the answer that made it.
        var apiKey: String? = nil
        /// True for the key the request used.
        var current: Bool? = nil

        init(_ record: APIKeyRecord) {
            keyId = record.id
            prefix = record.prefix
            createdAt = record.createdAt
            revokedAt = record.revokedAt
        }
    }

    static func listAPIKeys(_ request: HTTPRequest, _ context: ServerContext) throws -> HTTPResponse {
        let tenant = try context.tenant(request)
        let used = try context.stored { () throws(StoreError) in try context.store.apiKey(hash: Identifiers.hash(request.bearerToken ?? "")) }
        let keys = try context.stored { () throws(StoreError) in try context.store.apiKeys(tenantId: tenant.id) }.map { record in
            var view = APIKeyView(record)
            view.current = record.id == used?.id ? true : nil
            return view
        }
        return .json(["keys": keys], headers: [("Cache-Control", "no-store")])
    }

    static func createAPIKey(_ request: HTTPRequest, _ context: ServerContext) throws -> HTTPResponse {
        let tenant = try context.tenant(request)
        guard request.body.isEmpty || request.body == Array("{}".utf8) else { throw HTTPError(.unknownField, "this route takes no body") }
        guard let made = try Administration.createAPIKey(tenantId: tenant.id, in: context.store, at: context.clock.now) else {
            throw HTTPError(.apiKeyLimit, "a tenant holds at most \(Administration.maxLiveAPIKeys) live API keys: revoke one first")
        }
        var view = APIKeyView(made.record)
        view.apiKey = made.secret
        return .json(view, status: 201, headers: [("Cache-Control", "no-store")])
    }

    static func revokeAPIKey(_ request: HTTPRequest, _ context: ServerContext) throws -> HTTPResponse {
        let tenant = try context.tenant(request)
        let id = request.parameters["keyId"] ?? ""
        let now = context.clock.now
        guard let revoked = try context.stored({ () throws(StoreError) in
            try context.store.revokeAPIKey(id: id, tenantId: tenant.id, at: now, keepingOne: true)
        }) else {
            // Another tenant's key answers like a missing one.
            let keys = try context.stored { () throws(StoreError) in try context.store.apiKeys(tenantId: tenant.id) }
            if keys.contains(where: { $0.id == id && $0.revokedAt == nil }) {
                throw HTTPError(.lastAPIKey, "this is the tenant's last live API key: make another first, or ask the operator (vigil keys revoke)")
            }
            throw HTTPError(.apiKeyNotFound, "no such live API key")
        }
        context.logger.log(.info, "api_key_revoked", ["tenantId": .text(tenant.id), "keyId": .text(revoked.id)])
        return .json(APIKeyView(revoked), headers: [("Cache-Control", "no-store")])
    }
}
