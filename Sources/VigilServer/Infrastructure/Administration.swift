import Foundation
import VigilStore

/// Operator actions (the `vigil tenants|keys` commands), on a store directly.
public enum Administration {
    /// A new tenant and its first API key (returned once; only its hash is stored).
    public static func createTenant(name: String, in store: any Store) throws -> (tenant: Tenant, apiKey: String) {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard (1...100).contains(trimmed.utf8.count) else { throw ServerError(description: "a tenant name is 1-100 bytes") }
        let tenant = Tenant(id: Identifiers.id("tn_"), name: trimmed, createdAt: Date())
        try store.insertTenant(tenant)
        guard let key = try createAPIKey(tenantId: tenant.id, in: store, at: tenant.createdAt) else {
            throw ServerError(description: "the new tenant's first key was refused")
        }
        return (tenant, key.secret)
    }

    /// Live API keys a tenant may hold at once: the current one and its replacement, during a
    /// rotation.
    public static let maxLiveAPIKeys = 2

    /// A new API key for `tenantId` made at `date`: its record and the key itself (returned once;
    /// only its hash is stored); nil when the tenant holds `maxLiveAPIKeys` live keys already.
    public static func createAPIKey(tenantId: String, in store: any Store, at date: Date = Date()) throws -> (record: APIKeyRecord, secret: String)? {
        let secret = Identifiers.apiKey()
        let record = APIKeyRecord(id: Identifiers.id("ak_"), tenantId: tenantId, prefix: String(secret.prefix(Self.apiKeyPrefixLength)), createdAt: date)
        return try store.insertAPIKey(record, hash: Identifiers.hash(secret), maxLive: Self.maxLiveAPIKeys) ? (record, secret) : nil
    }

    /// How much of a key is kept and shown again: "vk_live_" and 4 characters of its 43 random
    /// ones (24 of its 256 bits), enough to tell a tenant's keys apart, far from enough to guess
    /// the rest.
    public static let apiKeyPrefixLength = 12

    /// Deletes a tenant and everything of it (`Store.deleteTenant`), then rids the database's
    /// files of it (`Store.reclaim`). False when there is no such tenant.
    public static func deleteTenant(id: String, in store: any Store) throws -> Bool {
        guard try store.deleteTenant(id: id) else { return false }
        try store.reclaim()
        return true
    }

    /// The demo tenant `vigil serve --demo` makes on a fresh data directory; nil when tenants exist.
    public static func createDemoTenantIfEmpty(in store: any Store) throws -> (tenant: Tenant, apiKey: String)? {
        guard try store.tenants().isEmpty else { return nil }
        return try createTenant(name: DemoPage.tenantName, in: store)
    }

    /// Makes a new signing key active; returns its kid. Running servers sign with it within
    /// `VerdictSigner.refreshInterval`; the old keys stay in the JWKS.
    public static func rotateSigningKey(in store: any Store) throws -> String {
        if try store.signingKeys().isEmpty { _ = try VerdictSigner(store: store) }
        return try VerdictSigner.rotate(in: store)
    }

    /// Withdraws a compromised signing key from the JWKS (a new key takes over when it was the
    /// active one); returns the active kid, or nil when there is no such key. Running servers follow within
    /// `VerdictSigner.refreshInterval`.
    public static func revokeSigningKey(_ kid: String, in store: any Store) throws -> String? {
        try VerdictSigner.revoke(kid: kid, in: store)
    }

    /// How often running servers read the signing keys again (seconds).
    public static var keyRefreshInterval: TimeInterval { VerdictSigner.refreshInterval }
}
