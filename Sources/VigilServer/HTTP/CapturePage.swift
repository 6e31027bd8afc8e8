import Foundation
import VigilCore
import VigilCrypto
import VigilHTTP
import VigilStore

/// The hosted capture page (`Resources/capture`): the HTML, served per request with a fresh CSP
/// nonce, and its static assets (script, style, one string catalogue per language), read once.
enum CapturePage {
    /// An asset and its content type.
    struct Asset {
        let bytes: [UInt8]
        let contentType: String
    }

    private static let directory = Bundle.module.url(forResource: "capture", withExtension: nil)

    /// `index.html` with its `{{nonce}}` placeholder.
    static let template: String = {
        guard let url = directory?.appendingPathComponent("index.html"), let text = try? String(contentsOf: url, encoding: .utf8) else {
            return "<!doctype html><title>Vigil</title><p>The capture page is missing from this build.</p>"
        }
        return text
    }()

    /// Every other file of the directory by name: only these are served.
    static let assets: [String: Asset] = {
        guard let directory, let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [:] }
        let types = ["js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8", "json": "application/json; charset=utf-8"]
        var assets: [String: Asset] = [:]
        for name in names where name != "index.html" {
            guard let type = types[(name as NSString).pathExtension],
                  let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else { continue }
            assets[name] = Asset(bytes: [UInt8](data), contentType: type)
        }
        return assets
    }()

    static func register(_ router: inout Router, _ context: ServerContext) {
        router.add("GET", "/c/{sessionId}") { request in
            // Framing is refused unless the tenant the id names allowlisted origins. The session
            // itself is not looked up: the answer must not tell whether it exists.
            let tenant = Identifiers.tenantId(ofSession: request.parameters["sessionId"] ?? "")
            let ancestors = try tenant.flatMap { (id) throws(ServiceError) in try BrandingAPI.branding(tenantId: id, context)?.frameAncestors } ?? []
            return page(frameAncestors: ancestors)
        }
        router.add("GET", "/c/assets/{file}") { request in
            guard let asset = assets[request.parameters["file"] ?? ""] else { throw HTTPError(.notFound, "no such asset") }
            return HTTPResponse(status: 200, headers: [("Content-Type", asset.contentType), ("Cache-Control", "public, max-age=300"),
                                                       ("X-Content-Type-Options", "nosniff")], body: asset.bytes)
        }
    }

    /// The page with a new nonce: only the script carrying it runs, nothing inline; framed only by
    /// `frameAncestors` (origins checked when the tenant set them).
    static func page(frameAncestors: [String]) -> HTTPResponse {
        let nonce = Base64URL.encode(SecureRandom.bytes(16))
        let ancestors = frameAncestors.isEmpty ? "'none'" : frameAncestors.joined(separator: " ")
        let policy = "default-src 'none'; script-src 'nonce-\(nonce)'; style-src 'self'; img-src 'self' data: blob:; "
            + "media-src 'self' blob: mediastream:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors \(ancestors)"
        return HTTPResponse(status: 200, headers: [
            ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"), ("Referrer-Policy", "no-referrer"),
            ("Content-Security-Policy", policy), ("X-Content-Type-Options", "nosniff"),
            ("Permissions-Policy", "camera=(self), microphone=(), geolocation=(self)"),
        ], body: Array(template.replacingOccurrences(of: "{{nonce}}", with: nonce).utf8))
    }
}
