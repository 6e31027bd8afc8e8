import Foundation
import Testing
import VigilHTTP
import VigilSDK

/// How the SDK's device client tells a proxy's own failure from Vigil's refusal.
@Suite struct DeviceAPIClientTests {
    /// A load balancer's 502 (no Vigil error body) is a network failure, which hosts retry; a
    /// 503 with Vigil's error body is a refusal with its code.
    @Test func aProxysGatewayErrorIsANetworkFailureAndVigilsRefusalIsNot() async throws {
        var router = Router()
        router.add("POST", "/v1/client/frames", bodyLimit: 1 << 20) { _ in .text("<html>502 Bad Gateway</html>", status: 502) }
        router.add("POST", "/v1/client/finish") { _ in
            HTTPResponse(status: 503, headers: [("Content-Type", "application/json")],
                         body: Array(#"{"error":{"code":"storage_unavailable","message":"later","requestId":"r"}}"#.utf8))
        }
        let server = try HTTPServer(configuration: .init(port: 0), router: router)
        let client = DeviceAPIClient(serverURL: try #require(URL(string: "http://127.0.0.1:\(server.port)")), token: "t")
        await #expect(throws: DeviceAPIClient.GatewayFailure.self) { _ = try await client.send(frame: [0xFF, 0xD8], captureMs: 0) }
        do {
            _ = try await client.finish()
            Issue.record("a 503 was taken for an answer")
        } catch let refusal as DeviceAPIClient.Refusal {
            #expect(refusal.status == 503 && refusal.code == "storage_unavailable")
        }
    }
}
