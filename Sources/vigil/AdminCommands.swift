import Foundation
import VigilCore
import VigilServer
import VigilStore

/// `vigil tenants|keys|sessions`: operator commands on a data directory or a PostgreSQL database.
enum AdminCommands {
    static let usage = """
    usage: vigil tenants create NAME [--data DIR | --database URL]
           vigil tenants list [--data DIR | --database URL]
           vigil tenants delete TENANT_ID [--data DIR | --database URL]
           vigil keys create --tenant ID [--data DIR | --database URL]
           vigil keys list --tenant ID [--data DIR | --database URL]
           vigil keys revoke KEY_ID [--data DIR | --database URL]
           vigil signing-keys rotate [--data DIR | --database URL]
           vigil signing-keys revoke KID [--data DIR | --database URL]
           vigil sessions list [--tenant ID] [--limit 50] [--data DIR | --database URL]
           vigil sessions show SESSION_ID [--data DIR | --database URL]
           vigil webhooks deliveries [--tenant ID] [--limit 50] [--data DIR | --database URL]
    """

    static func tenants(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, valued: DataOption.names)
        let store = try DataOption.store(args)
        switch args.positionals.first {
        case "create":
            guard args.positionals.count == 2 else { throw CLIError.usage(usage) }
            let (tenant, key) = try failing { try Administration.createTenant(name: args.positionals[1], in: store) }
            struct Created: Encodable { let tenantId: String, name: String, apiKey: String }
            try printJSON(Created(tenantId: tenant.id, name: tenant.name, apiKey: key))
        case "list":
            struct Row: Encodable { let tenantId: String, name: String, createdAt: Date }
            try printJSON(try failing { try store.tenants() }.map { Row(tenantId: $0.id, name: $0.name, createdAt: $0.createdAt) })
        case "delete" where args.positionals.count == 2:
            let id = args.positionals[1]
            guard try failing({ try Administration.deleteTenant(id: id, in: store) }) else {
                throw CLIError(code: "not_found", message: "no tenant \(id)", exitCode: 1)
            }
            try printJSON(["deletedTenantId": id, "note": "its sessions, images, webhooks, idempotent answers and API keys are erased"])
        default: throw CLIError.usage(usage)
        }
        return 0
    }

    /// A tenant's API keys: `create` shows the key once, `list` and `revoke` only its prefix.
    static func keys(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, valued: DataOption.names.union(["tenant"]))
        struct Row: Encodable {
            let keyId: String, tenantId: String, prefix: String?, createdAt: Date, revokedAt: Date?
            var apiKey: String? = nil
            init(_ key: APIKeyRecord) { (keyId, tenantId, prefix, createdAt, revokedAt) = (key.id, key.tenantId, key.prefix, key.createdAt, key.revokedAt) }
        }
        switch args.positionals.first {
        case "create" where args.positionals.count == 1:
            let store = try DataOption.store(args)
            let tenant = try existingTenant(args, in: store)
            guard let made = try failing({ try Administration.createAPIKey(tenantId: tenant, in: store) }) else {
                throw CLIError(code: "api_key_limit", message: "tenant \(tenant) holds \(Administration.maxLiveAPIKeys) live keys: revoke one first", exitCode: 1)
            }
            var row = Row(made.record)
            row.apiKey = made.secret
            try printJSON(row)
        case "list" where args.positionals.count == 1:
            let store = try DataOption.store(args)
            let tenant = try existingTenant(args, in: store)
            try printJSON(try failing { try store.apiKeys(tenantId: tenant) }.map(Row.init))
        case "revoke" where args.positionals.count == 2:
            let store = try DataOption.store(args)
            let id = args.positionals[1]
            guard let revoked = try failing({ try store.revokeAPIKey(id: id, tenantId: nil, at: Date(), keepingOne: false) }) else {
                // `vigil keys revoke KID` revoked signing keys before `signing-keys` existed.
                let signing = try failing { try store.signingKeys() }.contains { $0.kid == id }
                throw CLIError(code: "not_found", message: signing ? "\(id) is a signing key: vigil signing-keys revoke \(id)" : "no live API key \(id)",
                               exitCode: 1)
            }
            try printJSON(Row(revoked))
        case "rotate" where args.positionals.count == 1:
            // Before `signing-keys`, `vigil keys rotate` rotated the signing key: it still does.
            return try signingKeys(arguments)
        default: throw CLIError.usage(usage)
        }
        return 0
    }

    /// The tenant `--tenant` names, which must exist.
    private static func existingTenant(_ args: Arguments, in store: any Store) throws -> String {
        guard let id = args.value("tenant") else { throw CLIError.usage(usage) }
        guard try failing({ try store.tenant(id: id) }) != nil else { throw CLIError(code: "not_found", message: "no tenant \(id)", exitCode: 1) }
        return id
    }

    /// The result-signing keys.
    static func signingKeys(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, valued: DataOption.names)
        let refresh = Int(Administration.keyRefreshInterval)
        switch args.positionals.first {
        case "rotate" where args.positionals.count == 1:
            let store = try DataOption.store(args)
            let kid = try failing { try Administration.rotateSigningKey(in: store) }
            try printJSON(["activeKid": kid, "note": "running servers sign with the new key within \(refresh) s; old keys stay in the JWKS"])
        case "revoke" where args.positionals.count == 2:
            let store = try DataOption.store(args)
            let revoked = args.positionals[1]
            guard let kid = try failing({ try Administration.revokeSigningKey(revoked, in: store) }) else {
                throw CLIError(code: "not_found", message: "no signing key \(revoked)", exitCode: 1)
            }
            try printJSON(["revokedKid": revoked, "activeKid": kid,
                           "note": "running servers leave it out of the JWKS within \(refresh) s; results it signed no longer verify"])
        default: throw CLIError.usage(usage)
        }
        return 0
    }

    static func sessions(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, valued: DataOption.names.union(["tenant", "limit"]))
        let store = try DataOption.store(args)
        struct Row: Encodable {
            let sessionId: String, tenantId: String, status: SessionStatus, createdAt: Date, expiresAt: Date, externalRef: String?
            let signedResult: String?
        }
        func row(_ s: SessionRecord) -> Row {
            Row(sessionId: s.id, tenantId: s.tenantId, status: s.status, createdAt: s.createdAt, expiresAt: s.expiresAt, externalRef: s.externalRef,
                signedResult: s.signedResult)
        }
        switch args.positionals.first {
        case "list":
            let limit = Int(try args.double("limit", default: 50, range: 1...10_000))
            try printJSON(try failing { try store.sessions(tenantId: args.value("tenant"), limit: limit) }.map(row))
        case "show":
            guard args.positionals.count == 2 else { throw CLIError.usage(usage) }
            let id = args.positionals[1]
            guard let tenant = try failing({ try store.tenants() }).first(where: { (try? store.session(id: id, tenantId: $0.id)) != nil }),
                  let session = try failing({ try store.session(id: id, tenantId: tenant.id) }) else {
                throw CLIError(code: "not_found", message: "no session \(id)", exitCode: 1)
            }
            try printJSON(row(session))
        default: throw CLIError.usage(usage)
        }
        return 0
    }

    static func webhooks(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, valued: DataOption.names.union(["tenant", "limit"]))
        guard args.positionals == ["deliveries"] else { throw CLIError.usage(usage) }
        let store = try DataOption.store(args)
        let limit = Int(try args.double("limit", default: 50, range: 1...10_000))
        struct Row: Encodable {
            let id: String, tenantId: String, sessionId: String, event: String, state: String, attempts: Int
            let nextAttemptAt: Date, lastError: String?, createdAt: Date
        }
        try printJSON(try failing { try store.webhooks(tenantId: args.value("tenant"), limit: limit) }.map {
            Row(id: $0.id, tenantId: $0.tenantId, sessionId: $0.sessionId, event: $0.event, state: $0.state.rawValue, attempts: $0.attempts,
                nextAttemptAt: $0.nextAttemptAt, lastError: $0.lastError, createdAt: $0.createdAt)
        })
        return 0
    }

    private static func failing<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError(code: "failed", message: "\(error)")
        }
    }
}
