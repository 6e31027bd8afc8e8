import Foundation
import VigilStore

/// Operator actions (the `vigil tenants|keys` commands), on a store directly.
public enum Administration {
    /// A new tenant and its first API key (returned once; only its hash is stored).
    public static func createTenant(name: String, in store: any Store) throws -> (tenant: Tenant, apiKey: String) {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard (1...100).contains(trimmed.utf8.count) else { throw ServerError(description: "a tenant name is 1-100 bytes") }
        let tenant = Tenant(id: Identifiers.id("tn_"), name: trimmed, createdAt: Date())
        let key = Identifiers.apiKey()
        try store.insertTenant(tenant)
        try store.insertAPIKey(hash: Identifiers.hash(key), tenantId: tenant.id, createdAt: tenant.createdAt)
        return (tenant, key)
    }

    /// The demo tenant `vigil serve` makes on a fresh data directory; nil when tenants exist.
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
