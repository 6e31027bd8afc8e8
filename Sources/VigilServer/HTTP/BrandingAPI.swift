import Foundation
import VigilCore
import VigilHTTP
import VigilStore

/// A tenant's capture-page branding: `GET`/`PUT /v1/branding` for the tenant, and
/// `GET /v1/client/branding` for the page of one of its sessions. Every value is checked here,
/// and the page sets them as text or CSS colours only.
enum BrandingAPI {
    static let locales: Set<String> = ["en", "pt-BR", "es", "fr", "zh-Hans"]

    static func register(_ router: inout Router, _ context: ServerContext) {
        router.add("GET", "/v1/branding") { request in
            let tenant = try context.tenant(request)
            return .json(try branding(tenantId: tenant.id, context) ?? Branding())
        }
        router.add("PUT", "/v1/branding", bodyLimit: 512 * 1024, admit: { try context.admitAPIKey($0) }) { request in
            let tenant = try context.tenant(request)
            let branding = try validated(try context.decode(Branding.self, from: request.body, fields: Branding.fields))
            let bytes = branding == Branding() ? nil : [UInt8](try JSONEncoder().encode(branding))
            try context.stored { () throws(StoreError) in try context.store.setBranding(bytes, tenantId: tenant.id) }
            return .json(branding)
        }
        router.add("GET", "/v1/client/branding") { request in
            let record = try context.deviceSession(request)
            // The frame ancestors too: an iframed page posts its envelopes to one of them only.
            return .json(try branding(tenantId: record.tenantId, context) ?? Branding(), headers: [("Cache-Control", "no-store")])
        }
    }

    /// The stored branding of a tenant.
    static func branding(tenantId: String, _ context: ServerContext) throws(ServiceError) -> Branding? {
        let bytes = try context.stored { () throws(StoreError) in try context.store.branding(tenantId: tenantId) }
        return bytes.flatMap { try? JSONDecoder().decode(Branding.self, from: Data($0)) }
    }

    /// `branding` with origins normalised, or the first problem as a 400.
    static func validated(_ branding: Branding) throws(HTTPError) -> Branding {
        var out = branding
        for (name, value) in [("accent", branding.colors?.accent), ("background", branding.colors?.background), ("text", branding.colors?.text)] {
            if let value, !isHexColor(value) { throw HTTPError(.invalidField, "colors.\(name) must be '#rrggbb'") }
        }
        if let logo = branding.logo {
            let prefixes = ["data:image/png;base64,", "data:image/jpeg;base64,"]
            guard logo.utf8.count <= Branding.limits.logoBytes, let prefix = prefixes.first(where: logo.hasPrefix),
                  Data(base64Encoded: String(logo.dropFirst(prefix.count))) != nil else {
                throw HTTPError(.invalidField, "logo must be a PNG or JPEG data: URL of at most \(Branding.limits.logoBytes) bytes")
            }
        }
        let keys = Set(englishCatalogue.keys)
        for (locale, texts) in branding.texts ?? [:] {
            guard locales.contains(locale) else { throw HTTPError(.invalidField, "texts: unknown locale '\(locale)'") }
            for (key, text) in texts {
                guard keys.contains(key) else { throw HTTPError(.invalidField, "texts.\(locale): unknown key '\(key)'") }
                guard text.count <= Branding.limits.textLength else {
                    throw HTTPError(.invalidField, "texts.\(locale).\(key) is longer than \(Branding.limits.textLength) characters")
                }
            }
        }
        if let origins = branding.frameAncestors {
            guard origins.count <= Branding.limits.origins else { throw HTTPError(.invalidField, "at most \(Branding.limits.origins) frameAncestors") }
            out.frameAncestors = try origins.map { (text) throws(HTTPError) in
                guard let origin = origin(text) else {
                    throw HTTPError(.invalidField, "frameAncestors: '\(text)' is not an https origin (http only for localhost)")
                }
                return origin
            }
        }
        return out
    }

    static func isHexColor(_ text: String) -> Bool {
        text.utf8.count == 7 && text.first == "#" && text.dropFirst().allSatisfy(\.isHexDigit)
    }

    /// `scheme://host[:port]` of an origin with nothing else: https, or http on a loopback host.
    static func origin(_ text: String) -> String? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty,
              url.path.isEmpty || url.path == "/", url.query == nil, url.fragment == nil, url.user == nil,
              host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }) else { return nil }
        guard scheme == "https" || (scheme == "http" && ["localhost", "127.0.0.1"].contains(host)) else { return nil }
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
    }

    /// The English catalogue: every key a tenant may override.
    static let englishCatalogue: [String: String] = {
        guard let bytes = CapturePage.assets["i18n-en.json"]?.bytes,
              let catalogue = try? JSONDecoder().decode([String: String].self, from: Data(bytes)) else { return [:] }
        return catalogue
    }()
}
