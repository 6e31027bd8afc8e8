import Foundation
import Synchronization
import Testing
import VigilTestSupport
@testable import VigilServer

/// A node takes on no more capture sessions than its frame capacity serves at 10 frames a
/// second, and sheds bursts beyond it, answering unread frames 503 with when to send again.
@Suite struct AdmissionTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func sessionsAreAdmittedUpToTheCapacityAndTheNextWaitsForAPlace() {
        let admission = FrameAdmission(threads: 2, capacity: 20)
        #expect(admission.admit(sessionId: "a", at: start) == .accept)
        #expect(admission.admit(sessionId: "b", at: start) == .accept)
        #expect(admission.admit(sessionId: "c", at: start) == .refuseSession(retryAfterMs: 2000))
        #expect(admission.admittedSessions(at: start) == 2)
        admission.release(sessionId: "a")
        #expect(admission.admit(sessionId: "c", at: start.addingTimeInterval(0.5)) == .accept)
    }

    @Test func anIdleSessionGivesUpItsPlace() {
        let admission = FrameAdmission(threads: 2, capacity: 10)
        #expect(admission.admit(sessionId: "a", at: start) == .accept)
        #expect(admission.admit(sessionId: "b", at: start.addingTimeInterval(4)) == .refuseSession(retryAfterMs: 2000))
        #expect(admission.admit(sessionId: "b", at: start.addingTimeInterval(FrameAdmission.idleRelease + 0.1)) == .accept)
        #expect(admission.admit(sessionId: "a", at: start.addingTimeInterval(FrameAdmission.idleRelease + 0.2)) == .refuseSession(retryAfterMs: 2000))
    }

    @Test func oneSessionIsAdmittedHoweverSlowTheNode() {
        let admission = FrameAdmission(threads: 1, capacity: 2)
        #expect(admission.admit(sessionId: "a", at: start) == .accept)
        #expect(admission.admit(sessionId: "b", at: start) == .refuseSession(retryAfterMs: 2000))
    }

    /// Capacity 40 holds a quarter of a second of frames (10): the eleventh at the same instant
    /// is shed with the time a token takes, and frames are served again once it has passed.
    @Test func aBurstBeyondTheCapacityIsShedWithWhenToSendAgain() {
        let admission = FrameAdmission(threads: 2, capacity: 40)
        for _ in 0..<10 { #expect(admission.admit(sessionId: "a", at: start) == .accept) }
        guard case .shed(let waitMs) = admission.admit(sessionId: "a", at: start) else {
            Issue.record("the eleventh frame was not shed")
            return
        }
        #expect((100...1000).contains(waitMs))
        #expect(admission.admit(sessionId: "a", at: start.addingTimeInterval(Double(waitMs) / 1000)) == .accept)
    }

    /// A frame that would wait longer than 50 ms behind those already queued for the workers is
    /// shed on its headers at once, not answered late: 12 queued frames of 10 ms on two threads
    /// are 60 ms of waiting, 8 are 40.
    @Test func aFrameThatWouldWaitTooLongForAWorkerIsShedAtOnce() {
        let admission = FrameAdmission(threads: 2, capacity: 1000)
        let queued = Mutex(12)
        admission.measureQueue { queued.withLock { $0 } }
        guard case .shed(let waitMs) = admission.admit(sessionId: "a", at: start) else {
            Issue.record("a frame behind 60 ms of work was taken")
            return
        }
        #expect(waitMs == 100)
        queued.withLock { $0 = 8 }
        #expect(admission.admit(sessionId: "a", at: start) == .accept)
    }

    /// Two sessions on a capacity of 40 a second have 20 each: one that sends 100 a second
    /// gets its share (and a second of it at once), no more, and once its burst is spent the
    /// other's frames, at the page's 10 a second, are all served.
    @Test func oneSessionCannotTakeMoreThanItsShare() {
        let admission = FrameAdmission(threads: 2, capacity: 40)
        var greedy = 0, quiet: [Bool] = []
        for step in 0..<300 {
            let now = start.addingTimeInterval(Double(step) / 100)
            if step % 10 == 0 { quiet.append(admission.admit(sessionId: "quiet", at: now) == .accept) }
            if admission.admit(sessionId: "greedy", at: now) == .accept { greedy += 1 }
        }
        #expect(greedy <= 20 * 3 + 20, "\(greedy) in 3 s")
        #expect(quiet.dropFirst(10).allSatisfy { $0 }, "\(quiet)")
    }

    /// Frames smaller than the page's weigh in proportion to their pixels: 200 frames of 64x64
    /// at 1 ms (cheap because tiny) leave the measured cost near that of real frames.
    @Test func tinyFramesCannotTalkTheNodeIntoMoreSessions() {
        let admission = FrameAdmission(threads: 2)
        for _ in 0..<200 { admission.served(frameMs: 20, pixels: 640 * 480) }
        let real = admission.capacity()
        for _ in 0..<200 { admission.served(frameMs: 1, pixels: 64 * 64) }
        #expect(admission.capacity() < real * 1.25, "\(real) -> \(admission.capacity())")
    }

    /// Processor time reported by other work (document reads) is taken from the threads'
    /// budget for about ten seconds: a node busy reading admits fewer sessions, then recovers;
    /// frames keep at least a quarter of the threads' time.
    @Test func documentWorkLowersTheCapacityForAWhile() {
        let admission = FrameAdmission(threads: 2)
        for _ in 0..<200 { admission.served(frameMs: 20, pixels: 640 * 480) }
        let idle = admission.capacity(at: start)
        // 10 s of reads taking a whole core: 10,000 ms of processor time.
        for k in 0..<50 { admission.otherWork(ms: 200, at: start.addingTimeInterval(Double(k) * 0.2)) }
        let busy = admission.capacity(at: start.addingTimeInterval(10))
        #expect(busy < idle * 0.8, "\(idle) -> \(busy)")
        #expect(admission.capacity(at: start.addingTimeInterval(60)) > idle * 0.98)
        // However much is reported, frames keep a quarter of the threads' time.
        admission.otherWork(ms: 1e9, at: start.addingTimeInterval(60))
        #expect(abs(admission.capacity(at: start.addingTimeInterval(60)) - idle / 4) < 0.01)
        #expect(admission.admit(sessionId: "a", at: start.addingTimeInterval(60)) == .accept)
    }

    /// Measured, the capacity is 85% of what the threads serve at the running mean of a frame's
    /// cost: frames of 100 ms on two threads make about 17 a second, one session.
    @Test func theMeasuredCapacityFollowsWhatFramesCost() {
        let admission = FrameAdmission(threads: 2)
        let initial = admission.capacity()
        for _ in 0..<200 { admission.served(frameMs: 100, pixels: 640 * 480) }
        #expect(initial > 100)
        #expect(abs(admission.capacity() - 17) < 0.5, "\(admission.capacity())")
        #expect(admission.admit(sessionId: "a", at: start) == .accept)
        #expect(admission.admit(sessionId: "b", at: start) == .refuseSession(retryAfterMs: 2000))
        admission.served(frameMs: .nan, pixels: 640 * 480)
        admission.served(frameMs: -1, pixels: 640 * 480)
        #expect(abs(admission.capacity() - 17) < 0.5)
    }

    /// A frame that waited longer than `maxFrameWait` for a worker is shed unanalysed: its
    /// guidance would come too late. With a limit of 0 every frame has waited too long.
    @Test func aFrameThatWaitedTooLongForAWorkerIsShed() throws {
        let t = try TestServer(checkCaptureClock: false, inProcess: true, faces: .standIn, maxFrameWait: 0)
        let (id, token) = t.createSession()
        let late = t.request("POST", "/v1/client/frames", bearer: token, headers: ["Content-Type": "image/jpeg", "Vigil-Capture-Time": "0"],
                             body: try DeviceAPITests.jpegFrame())
        #expect(late.status == 503 && late.errorCode == "server_busy")
        #expect((late.json["error"] as? [String: Any])?["retryAfterMs"] as? Int == 100)
        let metrics = String(decoding: t.request("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains("vigil_frames_refused_total{reason=\"frame_late\"} 1"))
        // The engine never saw it: the session has no frame.
        #expect(t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["a"]).json["status"] as? String == "created")
    }

    /// Through the server: a node of 10 frames a second admits one session; the second's first
    /// frame is answered 503 `server_busy` on its headers (its 2 MB body never sent), with
    /// `Retry-After` and `retryAfterMs`; once the first session is cancelled the second is served.
    @Test func aSessionBeyondTheNodesCapacityWaitsWithA503BeforeItsBodyIsRead() throws {
        let logger = CapturingLogger()
        let t = try TestServer(checkCaptureClock: false, faces: .standIn, frameCapacity: 10, logger: logger)
        let jpeg = try DeviceAPITests.jpegFrame()
        let first = t.createSession(), second = t.createSession()
        let served = t.request("POST", "/v1/client/frames", bearer: first.token, headers: ["Content-Type": "image/jpeg", "Vigil-Capture-Time": "0"], body: jpeg)
        #expect(served.status == 200)

        let waiting = try RawHTTPClient(port: t.port)
        waiting.send(Array(("POST /v1/client/frames HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(second.token)\r\n"
                            + "Content-Type: image/jpeg\r\nVigil-Capture-Time: 0\r\nContent-Length: 2000000\r\n\r\n").utf8))
        let refused = try waiting.readResponse()
        #expect(refused.status == 503)
        #expect(refused.error?.code == "server_busy")
        #expect(refused.headers["retry-after"] == "2")
        let retryAfterMs = (try JSONSerialization.jsonObject(with: Data(refused.body)) as? [String: [String: Any]])?["error"]?["retryAfterMs"] as? Int
        #expect(retryAfterMs == 2000)
        // Flow control, not a fault: an access line, no server_error.
        #expect(!logger.logged.contains { $0.event == "server_error" })
        #expect(logger.logged.contains { $0.event == "request" && $0.fields["code"] == .text("server_busy") })

        #expect(t.request("POST", "/v1/client/cancel", bearer: first.token).status == 200)
        let admitted = t.request("POST", "/v1/client/frames", bearer: second.token, headers: ["Content-Type": "image/jpeg", "Vigil-Capture-Time": "0"], body: jpeg)
        #expect(admitted.status == 200)
        let metrics = String(decoding: t.request("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains("vigil_frames_refused_total{reason=\"session_waits\"} 1"))
        #expect(metrics.contains("vigil_frame_capacity 10"))
    }
}

/// A session holding a node's only place (capacity 10), sending a frame a second so that it never
/// goes idle, until released: then it is cancelled, which frees the place. Its frames go from a
/// thread of its own, which a busy cooperative pool cannot starve.
final class Occupant: Sendable {
    private let token: String
    private let server: TestServer
    private let released = Mutex(false)
    private let stopped = DispatchSemaphore(value: 0)

    init(_ t: TestServer) throws {
        server = t
        token = t.createSession().token
        guard send(0) == 200 else { throw Failure() }
        Thread.detachNewThread { [self] in
            var ms = 0
            while !released.withLock({ $0 }), ms < 120_000 {   // a test that never releases it ends it after two minutes
                Thread.sleep(forTimeInterval: 0.2)
                ms += 200
                if ms % 1000 == 0 { _ = send(ms) }
            }
            stopped.signal()
        }
    }

    struct Failure: Error {}

    private func send(_ ms: Int) -> Int {
        let jpeg = (try? DeviceAPITests.jpegFrame()) ?? []
        return server.request("POST", "/v1/client/frames", bearer: token, headers: ["Content-Type": "image/jpeg", "Vigil-Capture-Time": "\(ms)"], body: jpeg).status
    }

    /// Stops its frames and cancels the session; the cancellation's status code.
    func release() -> Int {
        released.withLock { $0 = true }
        stopped.wait()
        return server.request("POST", "/v1/client/cancel", bearer: token).status
    }

    /// Releases the place once `t` has kept a session waiting (or after 60 s), on a thread of
    /// its own; `wait()` on the semaphore returned.
    func releaseOnceASessionWaits(_ t: TestServer) -> DispatchSemaphore {
        let before = Self.sessionsKeptWaiting(t), done = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [self] in
            let deadline = Date().addingTimeInterval(60)
            while Self.sessionsKeptWaiting(t) == before, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
            _ = release()
            done.signal()
        }
        return done
    }

    /// Frames refused so far because their session waited for a place.
    static func sessionsKeptWaiting(_ t: TestServer) -> Int {
        let metrics = String(decoding: t.request("GET", "/metrics").body, as: UTF8.self)
        let line = metrics.split(separator: "\n").first { $0.hasPrefix("vigil_frames_refused_total{reason=\"session_waits\"}") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
    }
}
