import Foundation
import VigilCore
import VigilHTTP
import VigilStore

/// Public endpoints: health, readiness, keys, metrics, and the capture page.
enum PublicAPI {
    static func register(_ router: inout Router, _ context: ServerContext) {
        router.add("GET", "/healthz") { _ in .json(["status": "ok"]) }
        router.add("GET", "/readyz") { _ in
            guard (try? context.store.signingKeys().isEmpty) == false else {
                throw HTTPError(503, "not_ready", "the database is not reachable")
            }
            return .json(["status": "ready"])
        }
        router.add("GET", "/.well-known/jwks.json") { _ in
            .json(context.signer.jwks, headers: [("Cache-Control", "public, max-age=300")])
        }
        router.add("GET", "/metrics") { _ in
            .text(context.metrics.text(gauges: ["vigil_live_sessions": Double(context.live.count)]), contentType: "text/plain; version=0.0.4")
        }
        router.add("GET", "/c/{sessionId}") { _ in
            HTTPResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"),
                                                ("Referrer-Policy", "no-referrer"),
                                                ("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'")],
                         body: Array(CapturePage.html.utf8))
        }
    }
}
