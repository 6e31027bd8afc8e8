import Foundation
import Testing
import VigilFace

/// Admission past capacity: when every face analyzer stays busy, frames are shed with
/// `server_busy` rather than queued without end, a session without frames gives way first, and a
/// shed frame is never seen by the engine.
@Suite struct CapacityTests {
    func frame(_ t: TestServer, _ token: String, _ jpeg: [UInt8], at ms: Int) -> TestServer.Response {
        t.request("POST", "/v1/client/frames", bearer: token, headers: ["Content-Type": "image/jpeg", "Vigil-Capture-Time": String(ms)], body: jpeg)
    }

    @Test func framesPastCapacityAreShedAndANewSessionGivesWayFirst() throws {
        let pool = try AnalyzerPool(models: TestServer.models, size: 1)
        let t = try TestServer(checkCaptureClock: false, inProcess: true, analyzers: pool)
        let photo = try Image(contentsOf: DeviceAPITests.fixtures.appendingPathComponent("grace_hopper.jpg"))
        let frames = [80, 85, 90].map { photo.jpegData(quality: $0) }   // distinct bytes: a repeat would be a replay sign
        let (_, admitted) = t.createSession()
        #expect(frame(t, admitted, frames[0], at: 0).status == 200)
        let (_, newcomer) = t.createSession()

        // The only analyzer is held busy.
        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        Thread.detachNewThread { pool.withAnalyzer { _ in holding.signal(); release.wait() } }
        holding.wait()
        let refused = frame(t, newcomer, frames[0], at: 0)
        #expect(refused.status == 503 && refused.errorCode == "server_busy" && refused.headers["retry-after"] == "1")
        let shed = frame(t, admitted, frames[1], at: 100)
        #expect(shed.status == 503 && shed.errorCode == "server_busy")
        release.signal()

        // Free again: both go on, and the shed frames count nowhere.
        #expect(frame(t, newcomer, frames[0], at: 0).status == 200)
        #expect(frame(t, admitted, frames[2], at: 200).status == 200)
        let metrics = String(decoding: t.request("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains("vigil_frames_shed_total 2") && metrics.contains("vigil_frames_total 3"))
    }
}
