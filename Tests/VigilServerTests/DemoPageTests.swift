import Foundation
import Testing
import VigilCore
import VigilHTTP
import VigilStore
import VigilTestSupport
@testable import VigilServer

@Suite struct DemoPageTests {
    @Test func theDemoRunsASessionAndShowsItsVerifiedSignedResult() throws {
        let t = try TestServer(tenants: [DemoPage.tenantName], demo: true)
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

    /// Only `--demo` serves it, and then only to loopback clients: behind a reverse proxy on
    /// the same host, the client is the one the trusted proxy names.
    @Test func theDemoNeedsItsSwitchAndALoopbackClient() throws {
        let off = try TestServer(tenants: [DemoPage.tenantName], inProcess: true, faces: .none)
        #expect(off.request("GET", "/demo").status == 404)
        let t = try TestServer(tenants: [DemoPage.tenantName], faces: .none, demo: true, trustedProxies: [try #require(IPRange("127.0.0.2"))])
        let visitor = try RawHTTPClient(port: t.port, from: "127.0.0.2").request("GET", "/demo", headers: ["X-Forwarded-For": "203.0.113.9"])
        #expect(visitor.status == 404)
        let local = try RawHTTPClient(port: t.port, from: "127.0.0.2").request("GET", "/demo", headers: ["X-Forwarded-For": "127.0.0.1"])
        #expect(local.status == 303)
    }

    @Test func textOnTheResultPageIsEscaped() {
        #expect(DemoPage.escape("<script>\"a\" & 'b'</script>") == "&lt;script&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/script&gt;")
    }
}
