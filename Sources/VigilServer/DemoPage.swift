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
            var generator = PlanGenerator.random()
            let policy = LivenessPolicy.preset(level)
            let now = Date()
            let token = Identifiers.sessionToken()
            var record = SessionRecord(id: Identifiers.id("ses_"), tenantId: tenant.id, tokenHash: Identifiers.hash(token), policy: policy,
                                       externalRef: "demo", createdAt: now, expiresAt: now.addingTimeInterval(context.configuration.sessionLifetime))
            record.engineState = EngineSnapshot(plan: ChallengePlanner.plan(for: policy, using: &generator)).bytes
            try context.stored { () throws(StoreError) in try context.store.insertSession(record) }
            return HTTPResponse(status: 303, headers: [("Location", "/c/\(record.id)#\(token)"), ("Cache-Control", "no-store")])
        }
    }
}
