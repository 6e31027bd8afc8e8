import Foundation
import Synchronization
import Testing
import VigilHTTP
import VigilSDK
import VigilTestSupport

/// How the SDK's device client tells a proxy's own failure from Vigil's refusal, and how the
/// client rides over a proxy's failures.
@Suite(.scratchFolder) struct DeviceAPIClientTests {
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

    /// A host whose capture ended (it saw the status final).
    struct EndedHost: VigilCaptureHost {
        func capture(_ session: VigilCaptureSession) async throws(VigilError) {}
    }

    /// Behind a load balancer whose node went away, every other read of the status is a 502:
    /// the client reads the outcome again rather than losing the result. Counted tries, not a
    /// deadline: the outcome does not depend on how busy the machine is.
    @MainActor @Test func theOutcomeIsReadAgainWhenAGatewayFailsARead() async throws {
        var router = Router()
        let reads = Mutex(0)
        router.add("GET", "/v1/client/session") { _ in
            let read = reads.withLock { reads in
                reads += 1
                return reads
            }
            if read % 2 == 1 { return .text("<html>502 Bad Gateway</html>", status: 502) }
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/json")],
                                body: Array(#"{"status":"completed","outcome":"failed","feedback":["faceNotFound"],"signedResult":"h.p.s"}"#.utf8))
        }
        let server = try HTTPServer(configuration: .init(port: 0), router: router)
        let client = VigilClient(deviceIdStore: ScratchFolder.path("device-id"))
        try await client.initialize(config: VigilConfig(serverURL: try #require(URL(string: "http://127.0.0.1:\(server.port)")), pollInterval: 0.1))
        var states: [VigilLivenessState] = []
        for await state in client.startLivenessCheck(host: EndedHost(), sessionId: "s", sessionToken: "t") { states.append(state) }
        guard case .success(let result)? = states.last else { Issue.record("\(states)"); return }
        #expect(result.outcome == "failed" && result.signedResult == "h.p.s" && reads.withLock { $0 } == 2)
    }
}
