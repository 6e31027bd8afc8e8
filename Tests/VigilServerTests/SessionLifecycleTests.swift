import Foundation
import Testing
import VigilCore
import VigilStore
@testable import VigilServer

/// How sessions end when requests race: a person's cancel is not lost to a report the capture
/// page sent just before it.
@Suite(.serialized) struct SessionLifecycleTests {
    @Test func aCancelReadBeforeAPageReportStillCancelsTheSession() throws {
        let t = try TestServer(inProcess: true, faces: .none)
        let (id, token) = t.createSession()
        // The cancel's handler read the session, then the page's device id report stored it.
        let read = try #require(try t.store.session(id: id, tenantId: t.tenantIds["a"]!))
        let report = t.request("POST", "/v1/client/device", bearer: token, headers: ["Content-Type": "application/json"],
                               body: Array(#"{"deviceId":"device-12345678"}"#.utf8))
        #expect(report.status == 200)
        let context = ServerContext(configuration: ServerConfiguration(dataDirectory: t.data), store: t.store, signer: try VerdictSigner(store: t.store),
                                    analyzers: nil, clock: t.clock, logger: SilentLogger())
        let cancelled = try context.lifecycle.cancel(read)
        #expect(cancelled.status == .cancelled && cancelled.risk?.deviceId == "device-12345678")
        #expect(try t.store.session(id: id, tenantId: t.tenantIds["a"]!)?.status == .cancelled)
    }
}
