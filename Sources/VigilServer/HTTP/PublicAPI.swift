import Foundation
import VigilCore
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
        router.add("GET", "/metrics") { _ in
            .text(context.metrics.text(gauges: ["vigil_live_sessions": Double(context.live.count)]), contentType: "text/plain; version=0.0.4")
        }
        CapturePage.register(&router, context)
    }
}
