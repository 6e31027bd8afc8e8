import Foundation
import VigilCore
import VigilCrypto
import VigilHTTP
import VigilLiveness
import VigilStore

/// Public endpoints: health, readiness, keys, metrics, and the capture page with its assets.
enum PublicAPI {
    static func register(_ router: inout Router, _ context: ServerContext) {
        router.add("GET", "/healthz") { _ in .json(["status": "ok", "version": VigilVersion.current, "engineVersion": LivenessEngine.version]) }
        router.add("GET", "/readyz") { _ in
            guard (try? context.store.signingKeys().isEmpty) == false else {
                throw HTTPError(.notReady, "the database is not reachable")
            }
            return .json(["status": "ready"])
        }
        router.add("GET", "/.well-known/jwks.json") { _ in
            .json(context.signer.jwks, headers: [("Cache-Control", "public, max-age=300")])
        }
        router.add("GET", "/metrics") { request in
            // Counts across tenants are the operator's: answered to the scrape token, or to loopback when none is set.
            guard mayScrape(request, token: context.configuration.metricsToken) else { throw HTTPError(.notFound, "no such endpoint: /metrics") }
            let queue = try context.stored { () throws(StoreError) in try context.store.pendingWebhooks() }
            let gauges = [
                "vigil_live_sessions": Double(context.live.count),
                "vigil_frame_capacity": context.admission.capacity(at: context.clock.now),
                "vigil_admitted_sessions": Double(context.admission.admittedSessions(at: context.clock.now)),
                "vigil_webhook_queue_depth": Double(queue.count),
                "vigil_webhook_queue_oldest_seconds": queue.oldestCreatedAt.map { max(0, context.clock.now.timeIntervalSince($0)) } ?? 0,
            ]
            return .text(context.metrics.text(gauges: gauges), contentType: "text/plain; version=0.0.4")
        }
        CapturePage.register(&router, context)
    }

    /// Whether `request` may read `/metrics`: it carries `token` as its bearer token, or, with no
    /// token configured, it comes from a loopback address.
    static func mayScrape(_ request: HTTPRequest, token: String?) -> Bool {
        guard let token else { return request.isFromLoopback }
        return request.bearerToken.map { ConstantTime.equals(Array($0.utf8), Array(token.utf8)) } ?? false
    }
}
