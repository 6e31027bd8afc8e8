import Foundation
import Testing
import VigilCore
import VigilStore
@testable import VigilServer

/// A tenant's API keys over their life: a second one for a rotation, no third, only prefixes
/// shown again, the old one revoked and refused at once, the last one kept; and a tenant
/// deleted with everything of it.
@Suite(.serialized) struct APIKeyTests {
    @Test func aTenantRotatesItsKeyWithoutAGap() throws {
        let t = try TestServer(inProcess: true, faces: .none)
        let old = try #require(t.apiKeys["a"])
        let made = t.request("POST", "/v1/api-keys", bearer: old)
        #expect(made.status == 201 && made.headers["cache-control"] == "no-store")
        let new = try #require(made.json["apiKey"] as? String)
        #expect(new.hasPrefix("vk_live_") && made.json["prefix"] as? String == String(new.prefix(12)))
        #expect(t.request("POST", "/v1/api-keys", bearer: new).errorCode == "api_key_limit")
        // Both work while the backend moves over; the list shows prefixes and which is in use.
        #expect(t.json("POST", "/v1/sessions", ["riskLevel": "low"]).status == 201)
        let keys = try #require(t.request("GET", "/v1/api-keys", bearer: new).json["keys"] as? [[String: Any]])
        #expect(keys.count == 2 && keys.allSatisfy { $0["apiKey"] == nil })
        #expect(keys.first?["prefix"] as? String == String(old.prefix(12)) && keys.first?["current"] == nil && keys.last?["current"] as? Bool == true)
        #expect((keys.first?["createdAt"] as? String)?.hasSuffix("Z") == true)
        let oldId = try #require(keys.first?["keyId"] as? String), newId = try #require(keys.last?["keyId"] as? String)
        // Another tenant cannot see or revoke them.
        #expect(t.request("DELETE", "/v1/api-keys/\(oldId)", bearer: t.apiKeys["b"]).errorCode == "api_key_not_found")
        let revoked = t.request("DELETE", "/v1/api-keys/\(oldId)", bearer: new)
        #expect(revoked.status == 200 && revoked.json["revokedAt"] is String)
        let refused = t.request("POST", "/v1/sessions", bearer: old, body: Array("{\"riskLevel\":\"low\"}".utf8))
        #expect(refused.status == 401 && refused.errorCode == "invalid_api_key")
        // The last live key stays: the API would lock the tenant out.
        #expect(t.request("DELETE", "/v1/api-keys/\(newId)", bearer: new).errorCode == "last_api_key")
        #expect(t.request("DELETE", "/v1/api-keys/\(oldId)", bearer: new).errorCode == "api_key_not_found")
        #expect(t.request("POST", "/v1/api-keys", bearer: new).status == 201)
    }

    @Test func aDeletedTenantLeavesNothingBehind() throws {
        let t = try TestServer(inProcess: true, faces: .standIn)
        let (id, token) = t.createSession(tenant: "a")
        #expect(t.request("POST", "/v1/client/frames", bearer: token, headers: ["Content-Type": "image/jpeg", "Vigil-Capture-Time": "0"],
                          body: try DeviceAPITests.jpegFrame()).status == 200)
        #expect(try t.store.auditImage(sessionId: id) != nil)
        let kept = t.createSession(tenant: "b")
        let tenant = try #require(t.tenantIds["a"])
        #expect(try Administration.deleteTenant(id: tenant, in: t.store))
        #expect(try t.store.tenant(id: tenant) == nil && t.store.session(id: id, tenantId: tenant) == nil && t.store.auditImage(sessionId: id) == nil)
        #expect(try t.store.apiKeys(tenantId: tenant).isEmpty && t.store.sessions(tenantId: tenant, limit: 10).isEmpty)
        #expect(t.json("POST", "/v1/sessions", tenant: "a", ["riskLevel": "low"]).errorCode == "invalid_api_key")
        // The other tenant is untouched.
        #expect(try t.store.session(id: kept.id, tenantId: t.tenantIds["b"]!) != nil)
        #expect(try !Administration.deleteTenant(id: tenant, in: t.store))
    }
}
