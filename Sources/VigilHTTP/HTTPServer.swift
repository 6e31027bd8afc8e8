import CMicroHTTPD
import Foundation
import Synchronization

/// Why the server did not start.
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public let description: String
}

/// An HTTP/1.1 server over libmicrohttpd: a pool of poll threads with keep-alive, each request
/// read whole within its route's body limit (larger ones get 413 before their body is buffered),
/// answered by a `Router`, every response carrying `X-Request-Id`.
public final class HTTPServer: Sendable {
    /// Where and how to listen.
    public struct Configuration: Sendable {
        /// IPv4 or IPv6 address to bind.
        public var host = "127.0.0.1"
        /// Port; 0 picks a free one (see `port`).
        public var port: UInt16 = 8080
        /// HTTP threads (each runs its own poll loop).
        public var threads = 2
        /// Threads that answer `.workers` routes.
        public var workers = 2
        /// Threads that answer `.background` routes.
        public var backgroundWorkers = 1
        /// Requests of `.background` routes that may wait for a thread; the next is answered 503
        /// `server_busy` at once, so that long jobs never pile up in memory.
        public var backgroundQueue = 2
        /// Seconds an idle keep-alive connection is kept.
        public var idleTimeoutSeconds = 30
        /// Seconds an announced body that is refused (too large, or by the route's admission) is
        /// read and dropped before the refusal, so that a client writing it all before reading
        /// gets the answer rather than a reset connection; past them the connection is cut.
        public var lingerSeconds = 10
        /// Connections one client address may hold at once (0: no limit); further ones are
        /// closed as they are accepted, so that one address cannot hold every connection.
        public var connectionsPerAddress = 64
        /// Peers whose `X-Forwarded-For` names the client (`IPRange.client`): a request's
        /// `remoteAddress` is then the client's, for rate limits and logs. Connection caps stay
        /// per peer.
        public var trustedProxies: [IPRange] = []

        /// The defaults: 127.0.0.1:8080, two threads, 30 s idle timeout, 64 connections an address.
        public init(host: String = "127.0.0.1", port: UInt16 = 8080, threads: Int = 2, workers: Int = 2, idleTimeoutSeconds: Int = 30,
                    connectionsPerAddress: Int = 64) {
            self.host = host
            self.port = port
            self.threads = threads
            self.workers = workers
            self.idleTimeoutSeconds = idleTimeoutSeconds
            self.connectionsPerAddress = connectionsPerAddress
        }
    }

    /// The port listened on.
    public let port: UInt16
    /// Requests of `.workers` routes waiting for a worker thread.
    public var queuedRequests: Int { context.takeUnretainedValue().workers.queued }
    /// Requests of `.background` routes waiting or running.
    public var backgroundRequests: Int { context.takeUnretainedValue().background.load }
    private let daemon: Daemon
    private let context: Unmanaged<Context>

    /// What the C callbacks reach through their context pointer.
    final class Context: Sendable {
        let router: Router
        let workers: WorkerPool, background: WorkerPool
        let observe: @Sendable (HTTPRequest, HTTPResponse, Double) -> Void
        let trustedProxies: [IPRange]
        init(router: Router, configuration: Configuration, observe: @escaping @Sendable (HTTPRequest, HTTPResponse, Double) -> Void) {
            self.router = router
            trustedProxies = configuration.trustedProxies
            workers = WorkerPool(threads: configuration.workers)
            background = WorkerPool(threads: configuration.backgroundWorkers, name: "vigil-background", niceness: WorkerPool.backgroundNiceness,
                                    maxQueued: max(0, configuration.backgroundQueue))
            self.observe = observe
        }

        func stopWorkers() {
            workers.stop()
            background.stop()
        }
    }

    /// Owns the `vh_server` pointer. Invariant: set once at start, freed once by `stop()` under
    /// `lock`; the C server is itself thread-safe for `vh_in_flight` and `vh_quiesce`.
    final class Daemon: @unchecked Sendable {
        private let lock = NSLock()
        private var pointer: OpaquePointer?
        init(_ pointer: OpaquePointer) { self.pointer = pointer }
        func with<T>(_ body: (OpaquePointer) -> T) -> T? {
            lock.lock()
            defer { lock.unlock() }
            return pointer.map(body)
        }
        func stop() -> Bool {
            lock.lock()
            defer { lock.unlock() }
            guard let pointer else { return false }
            vh_stop(pointer)
            self.pointer = nil
            return true
        }
    }

    /// Starts listening. `observe` sees every answered request with its duration in ms (for
    /// access logs and metrics); it runs on the worker thread, so keep it cheap. The request it
    /// sees carries its matched route in `route`.
    public init(configuration: Configuration, router: Router,
                observe: @escaping @Sendable (HTTPRequest, HTTPResponse, Double) -> Void = { _, _, _ in }) throws(HTTPServerError) {
        let context = Unmanaged.passRetained(Context(router: router, configuration: configuration, observe: observe))
        var error = [CChar](repeating: 0, count: 256)
        guard let server = vh_start(configuration.host, configuration.port, UInt32(max(1, configuration.threads)),
                                    UInt32(max(1, configuration.idleTimeoutSeconds)), UInt32(max(0, configuration.connectionsPerAddress)),
                                    UInt32(max(1, configuration.lingerSeconds)), admitCallback, handlerCallback,
                                    context.toOpaque(), &error) else {
            context.takeUnretainedValue().stopWorkers()
            context.release()
            throw HTTPServerError(description: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        self.context = context
        daemon = Daemon(server)
        port = vh_port(server)
    }

    /// Requests being read or answered now.
    public var inFlight: Int { daemon.with { Int(vh_in_flight($0)) } ?? 0 }

    /// Closes each new connection as it arrives, lets requests in progress finish (up to
    /// `drainTimeout`), then stops (and the listening socket closes). Idempotent.
    public func shutdown(drainTimeout: Duration = .seconds(10)) {
        guard daemon.with({ vh_quiesce($0) }) != nil else { return }
        let deadline = ContinuousClock.now + drainTimeout
        while inFlight > 0, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        // Workers finish what they hold first: a suspended connection must be resumed before
        // the daemon stops.
        context.takeUnretainedValue().stopWorkers()
        if daemon.stop() { context.release() }
    }

    deinit { shutdown(drainTimeout: .zero) }
}

/// A request id: the caller's own when it is short and plain, otherwise 16 random hex digits.
func requestId(from header: String?) -> String {
    if let header, (1...64).contains(header.utf8.count),
       header.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E }) {
        return header
    }
    // A random per-process prefix and a counter: unique without a system call per request (ids
    // are for correlation, not secrets).
    return hex(requestIdPrefix) + hex(UInt32(truncatingIfNeeded: requestCounter.add(1, ordering: .relaxed).newValue))
}

private let requestIdPrefix = UInt32.random(in: .min ... .max)
private let requestCounter = Atomic<UInt64>(0)

private func hex(_ value: UInt32) -> String {
    let digits = Array("0123456789abcdef".utf8)
    return String(unsafeUninitializedCapacity: 8) { buffer in
        for i in 0..<8 { buffer[i] = digits[Int((value >> (28 - 4 * UInt32(i))) & 0xF)] }
        return 8
    }
}

/// The request the C layer hands over, copied out of its buffers.
private func request(from r: vh_request, trustedProxies: [IPRange]) -> HTTPRequest {
    func pairs(_ p: UnsafePointer<vh_pair>?, _ n: Int) -> [(String, String)] {
        (0..<n).map { (String(cString: p![$0].name), String(cString: p![$0].value)) }
    }
    var headers: [String: String] = [:]
    for (name, value) in pairs(r.headers, r.header_count) {
        headers[name.lowercased(), default: ""].append(headers[name.lowercased()] == nil ? value : ", \(value)")
    }
    let query = Dictionary(pairs(r.query, r.query_count), uniquingKeysWith: { first, _ in first })
    let body = r.body_length > 0 ? [UInt8](UnsafeBufferPointer(start: r.body, count: r.body_length)) : []
    let client = IPRange.client(peer: String(cString: r.remote_address), forwardedFor: headers["x-forwarded-for"], trusted: trustedProxies)
    var request = HTTPRequest(method: String(cString: r.method), path: String(cString: r.path), query: query, body: body,
                              remoteAddress: client)
    request.headers = headers
    request.requestId = requestId(from: headers["x-request-id"])
    return request
}

private func send(_ response: HTTPResponse, to reply: OpaquePointer?) {
    vh_reply_status(reply, Int32(response.status))
    for (name, value) in response.headers { vh_reply_header(reply, name, value) }
    response.body.withUnsafeBufferPointer { vh_reply_body(reply, $0.baseAddress, $0.count) }
}

private let admitCallback: vh_admit_fn = { context, raw, reply in
    let started = ContinuousClock.now
    let server = Unmanaged<HTTPServer.Context>.fromOpaque(context!).takeUnretainedValue()
    let r = raw!.pointee
    let (limit, refusal) = server.router.admission(method: String(cString: r.method), path: String(cString: r.path)) { request(from: r, trustedProxies: server.trustedProxies) }
    if let refusal {
        var head = request(from: r, trustedProxies: server.trustedProxies)
        let response = server.router.respond(to: &head, refusal: refusal)
        send(response, to: reply)
        server.observe(head, response, (ContinuousClock.now - started).milliseconds)
    }
    return limit
}

private let handlerCallback: vh_handler_fn = { context, raw, reply in
    let started = ContinuousClock.now
    let server = Unmanaged<HTTPServer.Context>.fromOpaque(context!).takeUnretainedValue()
    let r = raw!.pointee
    let request = request(from: r, trustedProxies: server.trustedProxies)

    let refusal = r.refused_status == 413
        ? HTTPError(.bodyTooLarge, "the body is larger than this endpoint accepts (\(server.router.bodyLimit(method: request.method, path: request.path)) bytes)",
                    headers: [("Connection", "close")])
        : nil
    // Answered, logged and counted before the client can read the answer, here or on a worker.
    @Sendable func answer(_ request: HTTPRequest, into reply: OpaquePointer?, refusal: HTTPError? = refusal) {
        var request = request
        let response = server.router.respond(to: &request, refusal: refusal)
        send(response, to: reply)
        server.observe(request, response, (ContinuousClock.now - started).milliseconds)
    }
    let lane = refusal == nil ? server.router.lane(method: request.method, path: request.path) : .http
    guard lane != .http else { return answer(request, into: reply) }
    vh_reply_defer(reply)
    let pending = PendingReply(pointer: reply!)
    let queued = (lane == .background ? server.background : server.workers).submit { [request] in
        answer(request, into: pending.pointer)
        vh_reply_finish(pending.pointer)
    }
    if !queued {
        answer(request, into: pending.pointer, refusal: HTTPError(.serverBusy, "this server is doing as much of this work as it can; send it again later",
                                                                  headers: [("Retry-After", "1")], retryAfterMs: 1000))
        vh_reply_finish(pending.pointer)
    }
}

/// A deferred reply on its way to a worker. Invariant: the job that holds it is the only user of
/// the pointer, from `vh_reply_defer` until it calls `vh_reply_finish` (which frees it in C).
private struct PendingReply: @unchecked Sendable {
    let pointer: OpaquePointer
}
