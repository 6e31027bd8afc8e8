import Foundation
import Synchronization
import Testing
import VigilTestSupport
@testable import VigilHTTP

@Suite struct HTTPServerTests {
    struct Echo: Codable { let id: String, bytes: Int }

    final class Counter: Sendable {
        let calls = Mutex(0)
        var value: Int { calls.withLock { $0 } }
        init() {}
    }

    static func server(calls: Counter? = nil, slowMs: Int = 0, connectionsPerAddress: Int = 64, lingerSeconds: Int = 10) throws -> HTTPServer {
        var configuration = HTTPServer.Configuration(port: 0, threads: 2, connectionsPerAddress: connectionsPerAddress)
        configuration.lingerSeconds = lingerSeconds
        return try HTTPServer(configuration: configuration, router: router(calls: calls, slowMs: slowMs))
    }

    static func router(calls: Counter? = nil, slowMs: Int = 0) -> Router {
        var router = Router()
        router.add("GET", "/v1/things/{id}") { request in
            .json(Echo(id: request.parameters["id"] ?? "", bytes: 0))
        }
        router.add("POST", "/v1/things/{id}", bodyLimit: 1024) { request in
            calls?.calls.withLock { $0 += 1 }
            return .json(Echo(id: request.parameters["id"] ?? "", bytes: request.body.count), status: 201)
        }
        router.add("POST", "/big", bodyLimit: 8 * 1024 * 1024) { request in .json(Echo(id: "big", bytes: request.body.count)) }
        router.add("GET", "/slow") { _ in
            Thread.sleep(forTimeInterval: Double(slowMs) / 1000)
            return .text("done")
        }
        router.add("GET", "/broken") { _ in throw CocoaError(.fileNoSuchFile) }
        return router
    }

    @Test func routesWithPathParametersAnswerJSONWithARequestId() throws {
        let server = try Self.server()
        let response = try RawHTTPClient(port: server.port).request("GET", "/v1/things/abc?x=1")
        #expect(response.status == 200)
        #expect(response.decode(Echo.self)?.id == "abc")
        #expect(response.headers["content-type"] == "application/json")
        #expect((response.headers["x-request-id"] ?? "").count == 16)
    }

    @Test func unknownPathsAndWrongMethodsGetJSONErrors() throws {
        let server = try Self.server()
        let client = try RawHTTPClient(port: server.port)
        let missing = try client.request("GET", "/nope")
        #expect(missing.status == 404)
        #expect(missing.error?.code == "not_found")
        #expect(missing.error?.requestId == missing.headers["x-request-id"])
        let wrong = try client.request("DELETE", "/v1/things/abc")
        #expect(wrong.status == 405)
        #expect(wrong.headers["allow"] == "GET, POST")
    }

    /// Slowloris: one address holding its connections open with headers that never end. It
    /// cannot open more; another address is served at once.
    @Test func oneAddressCannotHoldEveryConnection() throws {
        let server = try Self.server(connectionsPerAddress: 8)
        var held = try (0..<8).map { _ in try RawHTTPClient(port: server.port, from: "127.0.0.1") }
        for client in held {
            // Answered once (so the server surely holds it), then a request that never ends.
            #expect(try client.request("GET", "/v1/things/a").status == 200)
            client.send(Array("GET /v1/things/a HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n".utf8))
        }
        let ninth = try RawHTTPClient(port: server.port, from: "127.0.0.1")
        #expect(throws: POSIXError.self) { try ninth.request("GET", "/v1/things/b") }
        let other = try RawHTTPClient(port: server.port, from: "127.0.0.2").request("GET", "/v1/things/c")
        #expect(other.status == 200)
        // Once the first address lets one go, it may connect again.
        held.removeLast()
        let deadline = Date().addingTimeInterval(10)
        var again: Int?
        while again == nil, Date() < deadline {
            again = try? RawHTTPClient(port: server.port, from: "127.0.0.1").request("GET", "/v1/things/d").status
        }
        #expect(again == 200)
    }

    /// A client whose unfinished request and whose leaving reach the server together (the HTTP
    /// thread busy meanwhile) gives its place back at once, not after the idle timeout.
    @Test func aClientLeavingWhileTheServerIsBusyGivesItsPlaceBack() throws {
        let server = try HTTPServer(configuration: .init(port: 0, threads: 1, connectionsPerAddress: 1), router: Self.router(slowMs: 500))
        let leaving = try RawHTTPClient(port: server.port, from: "127.0.0.3")
        #expect(try leaving.request("GET", "/v1/things/a").status == 200)
        // Another client holds the one HTTP thread in a slow handler...
        let busy = try RawHTTPClient(port: server.port, from: "127.0.0.2")
        busy.send(Array("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        Thread.sleep(forTimeInterval: 0.2)
        // ...while the first starts a request and leaves.
        leaving.send(Array("GET /v1/things/a HTTP/1.1\r\nHost: x\r\n".utf8))
        leaving.close()
        #expect(try busy.readResponse().status == 200)
        // Within 10 s, a third of the idle timeout that freed the place before.
        var again: Int?
        for _ in 0..<100 where again == nil {
            again = try? RawHTTPClient(port: server.port, from: "127.0.0.3").request("GET", "/v1/things/b").status
            if again == nil { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(again == 200)
    }

    @Test func aBodyWithinTheLimitReachesTheHandler() throws {
        let server = try Self.server()
        let response = try RawHTTPClient(port: server.port).request("POST", "/v1/things/x", body: [UInt8](repeating: 7, count: 1000))
        #expect(response.status == 201)
        #expect(response.decode(Echo.self)?.bytes == 1000)
    }

    @Test func anAnnouncedOversizedBodyGets413WithoutReachingTheHandler() throws {
        let calls = Counter()
        let server = try Self.server(calls: calls, lingerSeconds: 1)
        // A client that waits for `100-continue` is answered on the headers alone...
        let waiting = try RawHTTPClient(port: server.port)
        waiting.send(Array("POST /v1/things/x HTTP/1.1\r\nHost: a\r\nContent-Length: 10000000\r\nExpect: 100-continue\r\n\r\n".utf8))
        let response = try waiting.readResponse()
        #expect(response.status == 413)
        #expect(response.error?.code == "body_too_large")
        // ...and so is one announcing more than 64 MiB past the limit.
        let huge = try RawHTTPClient(port: server.port)
        huge.send(Array("POST /v1/things/x HTTP/1.1\r\nHost: a\r\nContent-Length: 100000000\r\n\r\n".utf8))
        #expect(try huge.readResponse().status == 413)
        // One that announces 10 MB and sends none is waited for the lingering time, then cut:
        // its body may still be on its way.
        let silent = try RawHTTPClient(port: server.port)
        silent.send(Array("POST /v1/things/x HTTP/1.1\r\nHost: a\r\nContent-Length: 10000000\r\n\r\n".utf8))
        #expect(throws: (any Error).self) { try silent.readResponse() }
        #expect(calls.value == 0)
        // A body on a route that takes none is refused the same way.
        let get = try RawHTTPClient(port: server.port).request("GET", "/v1/things/x", body: [1, 2, 3])
        #expect(get.status == 413)
    }

    /// A client that writes its whole body before reading (Python's http.client, as `requests`
    /// uses) gets the 413, not a reset connection: a body up to 64 MiB past the limit is read and
    /// dropped before the answer (a lingering close), 40 MB included.
    @Test func aClientWritingAnOversizedBodyBeforeReadingGetsThe413() throws {
        let calls = Counter()
        let server = try Self.server(calls: calls)
        // Past the limit by 3 KB, a body larger than the socket buffers hold past its limit by
        // 512 KB, and 40 MB.
        for (path, size) in [("/v1/things/x", 4096), ("/big", 8 * 1024 * 1024 + 512 * 1024), ("/v1/things/x", 40_000_000)] {
            let client = try RawHTTPClient(port: server.port)
            let sent = client.send(Array("POST \(path) HTTP/1.1\r\nHost: a\r\nContent-Length: \(size)\r\n\r\n".utf8) + [UInt8](repeating: 66, count: size))
            #expect(sent, "the server cut the connection while the body was being sent")
            let response = try client.readResponse()
            #expect(response.status == 413 && response.error?.code == "body_too_large")
        }
        #expect(calls.value == 0)
    }

    @Test func aChunkedBodyThatGrowsPastTheLimitGets413() throws {
        let calls = Counter()
        let server = try Self.server(calls: calls)
        let client = try RawHTTPClient(port: server.port)
        var bytes = Array("POST /v1/things/x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        for _ in 0..<4 { bytes += Array("200\r\n".utf8) + [UInt8](repeating: 65, count: 512) + Array("\r\n".utf8) }
        bytes += Array("0\r\n\r\n".utf8)
        client.send(bytes)
        #expect(try client.readResponse().status == 413)
        #expect(calls.value == 0)
    }

    @Test func aChunkedFloodIsCutOffWithoutAnAnswer() throws {
        let calls = Counter()
        let server = try Self.server(calls: calls)
        let client = try RawHTTPClient(port: server.port)
        client.send(Array("POST /v1/things/x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n".utf8))
        let chunk = Array("10000\r\n".utf8) + [UInt8](repeating: 65, count: 65536) + Array("\r\n".utf8)
        for _ in 0..<40 { client.send(chunk) }   // 2.5 MiB, past the 1 MiB the server discards
        #expect(throws: (any Error).self) { try client.readResponse() }
        #expect(calls.value == 0)
    }

    @Test func aFailingHandlerGetsA500JSONError() throws {
        let server = try Self.server()
        let response = try RawHTTPClient(port: server.port).request("GET", "/broken")
        #expect(response.status == 500)
        #expect(response.error?.code == "internal_error")
    }

    @Test func keepAliveServesSeveralRequestsOnOneConnection() throws {
        let server = try Self.server()
        let client = try RawHTTPClient(port: server.port)
        for i in 0..<5 {
            let response = try client.request("GET", "/v1/things/\(i)")
            #expect(response.status == 200 && response.decode(Echo.self)?.id == "\(i)")
            #expect(response.headers["connection"]?.lowercased() != "close")
        }
    }

    @Test func aPlainCallerRequestIdIsKeptAndAHostileOneReplaced() throws {
        let server = try Self.server()
        let client = try RawHTTPClient(port: server.port)
        #expect(try client.request("GET", "/v1/things/a", headers: ["X-Request-Id": "trace-42"]).headers["x-request-id"] == "trace-42")
        let hostile = try client.request("GET", "/v1/things/a", headers: ["X-Request-Id": "a b<script>"]).headers["x-request-id"]
        #expect(hostile != nil && hostile != "a b<script>")
    }

    @Test func shutdownDrainsARequestInProgressAndRefusesNewConnections() throws {
        let server = try Self.server(slowMs: 400)
        let port = server.port
        let result = Mutex<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let status = try? RawHTTPClient(port: port).request("GET", "/slow").status
            result.withLock { $0 = status }
            done.signal()
        }
        while server.inFlight == 0 { Thread.sleep(forTimeInterval: 0.005) }
        server.shutdown()
        done.wait()
        #expect(result.withLock { $0 } == 200)
        #expect(throws: (any Error).self) { try RawHTTPClient(port: port).request("GET", "/v1/things/a") }
    }

    @Test func aPortInUseIsATypedError() throws {
        let server = try Self.server()
        #expect(throws: HTTPServerError.self) { try HTTPServer(configuration: .init(port: server.port), router: Router()) }
        #expect(throws: HTTPServerError.self) { try HTTPServer(configuration: .init(host: "not-an-ip", port: 0), router: Router()) }
    }
}

/// Routes on the worker and background lanes run on threads of their own: the HTTP threads keep answering.
@Suite struct OffloadedRouteTests {
    /// Opens and closes a gate that offloaded handlers wait at.
    final class Gate: Sendable {
        let open = Mutex(false)
        let entered = Mutex(0)
        func wait() {
            entered.withLock { $0 += 1 }
            while !open.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.005) }
        }
    }

    struct TimedOut: Error {}

    /// Waits (up to 10 s) until `condition` holds.
    static func waitUntil(_ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(10)
        while !condition() {
            guard Date() < deadline else { throw TimedOut() }
            Thread.sleep(forTimeInterval: 0.005)
        }
    }

    static func server(_ gate: Gate) throws -> HTTPServer {
        var router = Router()
        router.add("POST", "/work", bodyLimit: 1024, lane: .workers) { request in
            gate.wait()
            return .json(HTTPServerTests.Echo(id: "work", bytes: request.body.count))
        }
        router.add("GET", "/health") { _ in .text("ok") }
        return try HTTPServer(configuration: .init(port: 0, threads: 1, workers: 1), router: router)
    }

    /// With one HTTP thread and one worker, a request the worker holds does not keep the HTTP
    /// thread from answering another client, and its own answer arrives once the work is done.
    @Test func anOffloadedRequestLeavesTheHTTPThreadFree() throws {
        let gate = Gate()
        let server = try Self.server(gate)
        let worker = try RawHTTPClient(port: server.port)
        #expect(worker.send(Array("POST /work HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc".utf8)))
        while gate.entered.withLock({ $0 }) == 0 { Thread.sleep(forTimeInterval: 0.005) }
        #expect(try RawHTTPClient(port: server.port).request("GET", "/health").status == 200)
        gate.open.withLock { $0 = true }
        let answer = try worker.readResponse()
        #expect(answer.status == 200 && answer.decode(HTTPServerTests.Echo.self)?.bytes == 3)
        // The connection is kept alive after a deferred answer.
        #expect(try worker.request("GET", "/health").status == 200)
    }

    /// The background lane holds long jobs on threads of their own with a bounded queue: with
    /// its one thread busy and its two places taken, the next request is answered 503
    /// `server_busy` at once, while the workers' lane is still served.
    @Test func theBackgroundLaneRefusesWhatItsQueueCannotHoldAndLeavesTheWorkersFree() throws {
        let gate = Gate()
        var router = Router()
        router.add("POST", "/long", bodyLimit: 1024, lane: .background) { _ in
            gate.wait()
            return .text("done")
        }
        router.add("POST", "/quick", bodyLimit: 1024, lane: .workers) { _ in .text("quick") }
        var configuration = HTTPServer.Configuration(port: 0, threads: 1, workers: 1)
        configuration.backgroundWorkers = 1
        configuration.backgroundQueue = 2
        let server = try HTTPServer(configuration: configuration, router: router)
        defer { gate.open.withLock { $0 = true } }
        // The first holds the thread before the next two take the queue's places.
        let held = try (0..<3).map { _ in try RawHTTPClient(port: server.port) }
        #expect(held[0].send(Array("POST /long HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\na".utf8)))
        try Self.waitUntil { gate.entered.withLock({ $0 }) == 1 }
        for client in held.dropFirst() { #expect(client.send(Array("POST /long HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\na".utf8))) }
        try Self.waitUntil { server.backgroundRequests == 3 }
        let refused = try RawHTTPClient(port: server.port).request("POST", "/long", body: Array("b".utf8))
        #expect(refused.status == 503 && refused.error?.code == "server_busy" && refused.headers["retry-after"] == "1")
        #expect(try RawHTTPClient(port: server.port).request("POST", "/quick", body: Array("c".utf8)).status == 200)
        gate.open.withLock { $0 = true }
        for client in held { #expect(try client.readResponse().status == 200) }
        // A job leaves the lane's count once it has returned, just after its answer is sent.
        try Self.waitUntil { server.backgroundRequests == 0 }
    }

    /// A client that goes away while its request is on a worker: the worker still finishes, and
    /// the server goes on serving; shutting down waits for work in progress.
    @Test func aClientLeavingDuringOffloadedWorkAndAShutdownDuringItAreSafe() throws {
        let gate = Gate()
        let server = try Self.server(gate)
        do {
            let leaving = try RawHTTPClient(port: server.port)
            #expect(leaving.send(Array("POST /work HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc".utf8)))
            while gate.entered.withLock({ $0 }) == 0 { Thread.sleep(forTimeInterval: 0.005) }
        }   // closed here, its request still on the worker
        gate.open.withLock { $0 = true }
        let client = try RawHTTPClient(port: server.port)
        #expect(try client.request("POST", "/work", body: Array("abcd".utf8)).decode(HTTPServerTests.Echo.self)?.bytes == 4)
        gate.open.withLock { $0 = false }
        let pending = try RawHTTPClient(port: server.port)
        #expect(pending.send(Array("POST /work HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\na".utf8)))
        while gate.entered.withLock({ $0 }) < 3 { Thread.sleep(forTimeInterval: 0.005) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { gate.open.withLock { $0 = true } }
        server.shutdown()
        #expect(server.inFlight == 0)
    }
}
