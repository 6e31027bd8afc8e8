import Foundation
import Testing
import VigilCore
import VigilStore
import VigilTestSupport
@testable import VigilServer

@Suite struct DemoPageTests {
    @Test func theDemoRunsASessionAndShowsItsVerifiedSignedResult() throws {
        let t = try TestServer(tenants: [DemoPage.tenantName])
        let start = try RawHTTPClient(port: t.port).request("GET", "/demo")
        let location = try #require(start.headers["location"])
        #expect(start.status == 303 && location.hasPrefix("/c/ses_"))
        let id = String(location.dropFirst(3).prefix { $0 != "#" })
        let token = String(location.split(separator: "#").last ?? "")
        let record = try #require(try t.store.sessions(tenantId: nil, limit: 1).first)
        #expect(record.id == id && record.policy == .preset(.low))
        #expect(record.redirectUrl == "http://127.0.0.1:\(t.port)/demo/sessions/\(id)")
        #expect(t.request("GET", "/v1/client/session", bearer: token).json["redirectUrl"] as? String == record.redirectUrl)
        // Ended early by the device, the session has a real signed (failed) result.
        #expect(t.request("POST", "/v1/client/finish", bearer: token).json["outcome"] as? String == "failed")
        let page = String(decoding: t.request("GET", "/demo/sessions/\(id)").body, as: UTF8.self)
        #expect(page.contains("verified (EdDSA"))
        #expect(page.contains("&quot;outcome&quot; : &quot;failed&quot;"))
        #expect(t.request("GET", "/demo/sessions/ses_other").status == 404)
    }

    @Test func textOnTheResultPageIsEscaped() {
        #expect(DemoPage.escape("<script>\"a\" & 'b'</script>") == "&lt;script&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/script&gt;")
    }
}
