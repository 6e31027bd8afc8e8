import Foundation
import VigilCore
import VigilCrypto
import VigilHTTP
import VigilLiveness
import VigilStore

/// `GET /demo`: for a person trying Vigil on this machine, a fresh session of the demo tenant
/// and a redirect to its capture page, which returns to `GET /demo/sessions/{id}`: the verdict,
/// and the signed result decoded and verified against the server's published keys, as a tenant
/// backend would. Served only with `vigil serve --demo`, and then to loopback clients only (the
/// client as `--trusted-proxies` resolve it): both act with the demo tenant's rights.
enum DemoPage {
    /// The name `vigil serve` gives the tenant it makes on a fresh data directory.
    static let tenantName = "demo"

    static func register(_ router: inout Router, _ context: ServerContext) {
        router.add("GET", "/demo") { request in
            let tenant = try demoTenant(request, context)
            let level = RiskLevel(rawValue: request.query["risk"] ?? "low") ?? .low
            let id = Identifiers.sessionId(tenantId: tenant.id)
            let (record, token) = context.lifecycle.newSession(tenantId: tenant.id, policy: .preset(level)) {
                $0.id = id
                $0.externalRef = "demo"
                $0.redirectUrl = "\(context.baseURL)/demo/sessions/\(id)"
            }
            try context.stored { () throws(StoreError) in try context.store.insertSession(record) }
            return HTTPResponse(status: 303, headers: [("Location", "/c/\(record.id)#\(token)"), ("Cache-Control", "no-store")])
        }
        router.add("GET", "/demo/sessions/{sessionId}") { request in
            let tenant = try demoTenant(request, context)
            let id = request.parameters["sessionId"] ?? ""
            guard let record = try context.stored({ () throws(StoreError) in try context.store.session(id: id, tenantId: tenant.id) }) else {
                throw HTTPError(.sessionNotFound, "no such demo session")
            }
            return result(try context.lifecycle.expireIfDue(record), context)
        }
    }

    private static func demoTenant(_ request: HTTPRequest, _ context: ServerContext) throws -> Tenant {
        guard request.isFromLoopback else {
            throw HTTPError(.notFound, "no such endpoint: \(request.path)")
        }
        guard let tenant = try context.stored({ () throws(StoreError) in try context.store.tenants() }).first(where: { $0.name == tenantName }) else {
            throw HTTPError(.notFound, "there is no demo tenant in this data directory")
        }
        return tenant
    }

    /// The result page: status, outcome, and the JWS checked with the JWKS.
    static func result(_ record: SessionRecord, _ context: ServerContext) -> HTTPResponse {
        var rows: [(String, String)] = [("Session", record.id), ("Status", record.status.rawValue)]
        if let verdict = record.verdict {
            rows.append(("Outcome", verdict.outcome))
            if !verdict.feedback.isEmpty { rows.append(("Feedback", verdict.feedback.map(\.rawValue).joined(separator: ", "))) }
        }
        var sections = ""
        if let compact = record.signedResult, let jws = try? CompactJWS(parsing: compact) {
            let key = jws.header.kid.flatMap { context.signer.jwks.key(id: $0) }?.ed25519PublicKey
            let verified = key.map { jws.isSigned(by: $0) } ?? false
            rows.append(("Signature", verified ? "verified (EdDSA, key \(jws.header.kid ?? "?") from /.well-known/jwks.json)" : "NOT verified"))
            sections += "<h2>JWS header</h2><pre>\(escape(pretty(Base64URL.decode(jws.headerSegment) ?? [])))</pre>"
            sections += "<h2>JWS payload</h2><pre>\(escape(pretty(jws.payload)))</pre>"
            sections += "<h2>Compact JWS</h2><pre class=\"wrap\">\(escape(compact))</pre>"
        }
        let table = rows.map { "<tr><th>\(escape($0.0))</th><td>\(escape($0.1))</td></tr>" }.joined()
        let nonce = Base64URL.encode(SecureRandom.bytes(16))
        let html = """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Vigil demo result</title><style nonce="\(nonce)">body{font:16px system-ui,sans-serif;max-width:760px;margin:2em auto;padding:0 1em}
            th{text-align:left;padding-right:1em}pre{background:#f4f4f4;padding:1em;overflow:auto}.wrap{white-space:pre-wrap;word-break:break-all}</style>
            </head><body><h1>Vigil demo result</h1><table>\(table)</table>\(sections)<p><a href="/demo">Start another session</a></p></body></html>
            """
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"),
                                                   ("Content-Security-Policy", "default-src 'none'; style-src 'nonce-\(nonce)'; frame-ancestors 'none'")],
                            body: Array(html.utf8))
    }

    private static func pretty(_ json: [UInt8]) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json)),
              let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]) else {
            return String(decoding: json, as: UTF8.self)
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Text as HTML: every markup character escaped.
    static func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }
}
