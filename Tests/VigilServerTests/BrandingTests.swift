import Foundation
import Testing
import VigilCore
import VigilHTTP
import VigilTestSupport
@testable import VigilServer

@Suite struct BrandingTests {
    static let logo = "data:image/png;base64," + Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]).base64EncodedString()

    @Test func brandingIsCheckedStoredPerTenantAndFramesOnlyItsOwnPages() throws {
        let t = try TestServer()
        let bad: [([String: Any], String)] = [
            (["colors": ["accent": "red"]], "colors.accent"),
            (["colors": ["text": "#12345g"]], "colors.text"),
            (["logo": "https://cdn.example/logo.png"], "logo"),
            (["logo": "data:image/svg+xml;base64,PHN2Zz4="], "logo"),
            (["texts": ["de": ["start": "Los"]]], "unknown locale"),
            (["texts": ["en": ["nope": "x"]]], "unknown key"),
            (["texts": ["en": ["start": String(repeating: "x", count: 301)]]], "longer"),
            (["frameAncestors": ["https://app.example/path"]], "frameAncestors"),
            (["frameAncestors": ["http://app.example"]], "frameAncestors"),
            (["frameAncestors": ["https://a.example; script-src *"]], "frameAncestors"),
            (["font": "Comic Sans"], "unknown field"),
        ]
        for (body, expected) in bad {
            let answer = t.json("PUT", "/v1/branding", body)
            #expect(answer.status == 400 && String(decoding: answer.body, as: UTF8.self).contains(expected), "\(body)")
        }
        let good: [String: Any] = ["colors": ["accent": "#AA3300"], "logo": Self.logo, "texts": ["fr": ["introTitle": "Bonjour, c'est Acme"]],
                                   "frameAncestors": ["https://App.Example:8443/", "http://127.0.0.1:9000"]]
        #expect(t.json("PUT", "/v1/branding", good).status == 200)
        let stored = try #require(t.request("GET", "/v1/branding", bearer: t.apiKeys["a"]).decode(Branding.self))
        #expect(stored.frameAncestors == ["https://app.example:8443", "http://127.0.0.1:9000"] && stored.colors?.accent == "#AA3300")
        #expect(t.request("GET", "/v1/branding", bearer: t.apiKeys["b"]).decode(Branding.self) == Branding())
        let (idA, tokenA) = t.createSession(tenant: "a")
        let (idB, _) = t.createSession(tenant: "b")
        #expect(t.request("GET", "/v1/client/branding", bearer: tokenA).decode(Branding.self)?.logo == Self.logo)
        #expect(t.request("GET", "/c/\(idA)").headers["content-security-policy"]?.hasSuffix("frame-ancestors https://app.example:8443 http://127.0.0.1:9000") == true)
        #expect(t.request("GET", "/c/\(idB)").headers["content-security-policy"]?.hasSuffix("frame-ancestors 'none'") == true)
        #expect(t.request("GET", "/c/ses_unknown").headers["content-security-policy"]?.hasSuffix("frame-ancestors 'none'") == true)
        // A session id of tenant a that does not exist gets the same origins: the answer does not
        // tell whether a session exists.
        let unknownA = String(idA.prefix(20)) + String(repeating: "x", count: 16)
        #expect(try t.store.session(id: unknownA, tenantId: t.tenantIds["a"]!) == nil)
        #expect(t.request("GET", "/c/\(unknownA)").headers["content-security-policy"]?.hasSuffix("frame-ancestors https://app.example:8443 http://127.0.0.1:9000") == true)
        // An empty body clears it.
        #expect(t.json("PUT", "/v1/branding", [:]).status == 200)
        #expect(t.request("GET", "/c/\(idA)").headers["content-security-policy"]?.hasSuffix("frame-ancestors 'none'") == true)
    }
}
