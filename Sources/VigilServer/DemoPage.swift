import Foundation
import VigilCore
import VigilHTTP
import VigilLiveness
import VigilStore

/// `GET /demo`: for a person trying Vigil on this machine, a fresh session of the demo tenant
/// and a redirect to its capture page. Loopback clients only: it acts with the tenant's rights.
enum DemoPage {
    /// The name `vigil serve` gives the tenant it makes on a fresh data directory.
    static let tenantName = "demo"

    static func register(_ router: inout Router, _ context: ServerContext) {
        router.add("GET", "/demo") { request in
            guard ["127.0.0.1", "::1", "::ffff:127.0.0.1"].contains(request.remoteAddress) else {
                throw HTTPError(404, "not_found", "no such endpoint: /demo")
            }
            guard let tenant = try context.stored({ () throws(StoreError) in try context.store.tenants() }).first(where: { $0.name == tenantName }) else {
                throw HTTPError(404, "not_found", "there is no demo tenant in this data directory")
            }
            let level = RiskLevel(rawValue: request.query["risk"] ?? "low") ?? .low
            let (record, token) = TenantAPI.newSession(tenantId: tenant.id, policy: .preset(level), context) { $0.externalRef = "demo" }
            try context.stored { () throws(StoreError) in try context.store.insertSession(record) }
            return HTTPResponse(status: 303, headers: [("Location", "/c/\(record.id)#\(token)"), ("Cache-Control", "no-store")])
        }
    }
}
