import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import VigilCore
import VigilFace
import VigilHTTP
import VigilServer
import VigilStore

/// A server on a free port over a fresh data directory, with one tenant per name, and a blocking
/// client for the tests: over the socket, or in-process (`VigilServer.respond(to:)`) for suites
/// about what the handlers do rather than about HTTP.
final class TestServer: @unchecked Sendable {
    static let models = try! FaceModels()
    /// One set of analyzers for every server of the test process (the pool lends them per call).
    static let analyzers = try! AnalyzerPool(models: models, size: 2)
    /// The servers' clock: the system's, moved on by `advance(by:)`.
    let clock = TestClock()
    let server: VigilServer
    let store: any Store
    let data: URL
    var apiKeys: [String: String] = [:]
    var tenantIds: [String: String] = [:]
    /// The port requests go to (the server's unless a test points it at another process's).
    var port: UInt16
    /// Whether the servers check the capture clock against arrivals (off where tests send a
    /// timeline faster than real time).
    let checkCaptureClock: Bool
    /// Admission with a fixed capacity, far above what tests send, and no shedding of frames that
    /// waited for a worker: measured from frame cost or wait, both would depend on the machine's
    /// load (`AdmissionTests` sets its own).
    static let frameCapacity = 10_000.0
    /// Whether requests to this server skip the socket.
    let inProcess: Bool

    /// What analyses the frames: the set-up models, a stand-in for tests whose subject is not
    /// faces (`StandInFaces`, no models loaded), or nothing (the server refuses face work).
    enum Faces {
        case models, standIn, none

        /// The analyzers a server of this kind gets.
        var pool: AnalyzerPool? {
            switch self {
            case .models: TestServer.analyzers
            case .standIn: StandInFaces.pool
            case .none: nil
            }
        }
    }

    init(tenants: [String] = ["a", "b"], sessionLifetime: TimeInterval = 600, retention: TimeInterval = 7 * 86400,
         allowPrivateWebhooks: Bool = false, checkCaptureClock: Bool = true, inProcess: Bool = false, faces: Faces = .models, metricsToken: String? = nil,
         frameCapacity: Double? = TestServer.frameCapacity, maxFrameWait: Double? = nil, demo: Bool = false, trustedProxies: [IPRange] = [],
         rateLimited: Bool = true, perSessionToken: (burst: Double, perSecond: Double)? = nil, logger: any Logger = SilentLogger(),
         database: String? = nil) throws {
        self.inProcess = inProcess
        data = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-server-\(UUID().uuidString)")
        // SQLite in the data directory, or the PostgreSQL database of `database` (libpq settings).
        store = try database.map { try VigilServer.openStore(database: $0, connections: 4) } ?? VigilServer.openStore(data)
        for name in tenants {
            let (tenant, key) = try Administration.createTenant(name: name, in: store)
            apiKeys[name] = key
            tenantIds[name] = tenant.id
        }
        var configuration = ServerConfiguration(dataDirectory: data)
        configuration.port = 0
        configuration.sessionLifetime = sessionLifetime
        configuration.retention = retention
        configuration.allowPrivateWebhooks = allowPrivateWebhooks
        configuration.checkCaptureClock = checkCaptureClock
        configuration.metricsToken = metricsToken
        configuration.frameCapacity = frameCapacity
        configuration.maxFrameWait = maxFrameWait
        configuration.demo = demo
        configuration.trustedProxies = trustedProxies
        configuration.rateLimits.enabled = rateLimited
        if let perSessionToken { configuration.rateLimits.perSessionToken = perSessionToken }
        self.checkCaptureClock = checkCaptureClock
        server = try VigilServer(configuration: configuration, store: store, analyzers: faces.pool, clock: clock, logger: logger)
        port = server.port
    }

    /// Another server over the same data directory, as a second process would be.
    func peer() throws -> VigilServer {
        var configuration = ServerConfiguration(dataDirectory: data)
        configuration.port = 0
        configuration.checkCaptureClock = checkCaptureClock
        configuration.frameCapacity = Self.frameCapacity
        configuration.maxFrameWait = nil
        return try VigilServer(configuration: configuration, store: try VigilServer.openStore(data), analyzers: Self.analyzers, clock: clock)
    }

    deinit {
        server.shutdown()
        try? FileManager.default.removeItem(at: data)
    }

    struct Response {
        let status: Int
        let headers: [String: String]
        let body: [UInt8]
        func decode<T: Decodable>(_ type: T.Type) -> T? { try? JSONDecoder().decode(type, from: Data(body)) }
        var errorCode: String? {
            struct E: Decodable { struct D: Decodable { let code: String }; let error: D }
            return decode(E.self)?.error.code
        }
        var json: [String: Any] { ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]) ?? [:] }
    }

    func request(_ method: String, _ path: String, bearer: String? = nil, headers: [String: String] = [:], body: [UInt8]? = nil) -> Response {
        if inProcess, port == server.port {
            var fields = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
            if let bearer { fields["authorization"] = "Bearer \(bearer)" }
            let parts = path.split(separator: "?", maxSplits: 1)
            let query = parts.count > 1 ? Dictionary(parts[1].split(separator: "&").map { pair -> (String, String) in
                let kv = pair.split(separator: "=", maxSplits: 1)
                return (String(kv[0]).removingPercentEncoding ?? "", kv.count > 1 ? String(kv[1]).removingPercentEncoding ?? "" : "")
            }, uniquingKeysWith: { a, _ in a }) : [:]
            var request = HTTPRequest(method: method, path: String(parts[0]), query: query, body: body ?? [], remoteAddress: "127.0.0.1")
            request.headers = fields
            let response = server.respond(to: request)
            let answered = Dictionary(response.headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
            return Response(status: response.status, headers: answered, body: response.body)
        }
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        for (k, v) in headers { request.setValue(v, forHTTPHeaderField: k) }
        request.httpBody = body.map { Data($0) }
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox()
        URLSession.shared.dataTask(with: request) { data, response, _ in
            let http = response as? HTTPURLResponse
            let headers = (http?.allHeaderFields as? [String: String]).map { Dictionary($0.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a }) } ?? [:]
            box.value = Response(status: http?.statusCode ?? 0, headers: headers, body: data.map { [UInt8]($0) } ?? [])
            done.signal()
        }.resume()
        done.wait()
        return box.value!
    }

    func json(_ method: String, _ path: String, tenant: String? = "a", _ object: [String: Any], headers: [String: String] = [:]) -> Response {
        request(method, path, bearer: tenant.flatMap { apiKeys[$0] }, headers: headers,
                body: [UInt8](try! JSONSerialization.data(withJSONObject: object)))
    }

    /// A session of tenant `tenant`: (id, token).
    func createSession(tenant: String = "a", _ body: [String: Any] = ["riskLevel": "low"]) -> (id: String, token: String) {
        let created = json("POST", "/v1/sessions", tenant: tenant, body).json
        return (created["sessionId"] as? String ?? "", created["sessionToken"] as? String ?? "")
    }

    final class ResultBox: @unchecked Sendable { var value: Response? }
}

/// The system clock moved on by whatever a test asks, so that expiry and retention need no sleeping.
final class TestClock: ServerClock {
    private let offset = Mutex<TimeInterval>(0)
    var now: Date { Date().addingTimeInterval(offset.withLock { $0 }) }
    /// Moves the time on by `seconds`.
    func advance(by seconds: TimeInterval) { offset.withLock { $0 += seconds } }
}
