import Foundation
import VigilCore
import VigilFace
import VigilHTTP
import VigilStore

/// Why the server could not start.
public struct ServerError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public let description: String
}

/// The Vigil application: the store, the signing keys, the engines and the HTTP API together.
public final class VigilServer: Sendable {
    /// Every route the server answers, for the OpenAPI check.
    public let routes: [(method: String, pattern: String)]
    /// The port listened on.
    public var port: UInt16 { http.port }
    /// The base URL capture links use.
    public var baseURL: String { context.baseURL }
    private let http: HTTPServer
    private let router: Router
    /// The methods the routes answer, once: every request's metrics name one of them or `other`.
    private let methods: Set<String>
    private let context: ServerContext
    private let worker: BackgroundWorker

    /// Opens (or creates) the data directory, makes one analyzer per thread over the face models
    /// and starts listening; writes what it does to `logger`.
    public convenience init(configuration: ServerConfiguration, models: FaceModels, logger: any Logger = SilentLogger()) throws(ServerError) {
        let store = try Self.openStore(configuration.dataDirectory)
        let analyzers: AnalyzerPool
        do {
            analyzers = try AnalyzerPool(models: models, size: max(1, configuration.threads))
        } catch {
            throw ServerError(description: "cannot start: \(error)")
        }
        try self.init(configuration: configuration, store: store, analyzers: analyzers, logger: logger)
    }

    /// Starts listening over `store`, analysing faces with `analyzers`, reading the time from
    /// `clock` and writing what it does to `logger`. Without analyzers (tests of what needs no
    /// face), frames, reference images and comparisons are refused with 503 `not_ready`.
    public init(configuration: ServerConfiguration, store: any Store, analyzers: AnalyzerPool?, clock: any ServerClock = SystemClock(),
                logger: any Logger = SilentLogger()) throws(ServerError) {
        let signer: VerdictSigner
        do {
            signer = try VerdictSigner(store: store)
        } catch {
            throw ServerError(description: "cannot start: \(error)")
        }
        let context = ServerContext(configuration: configuration, store: store, signer: signer, analyzers: analyzers, clock: clock, logger: logger)
        var router = Router()
        TenantAPI.register(&router, context)
        DeviceAPI.register(&router, context)
        PublicAPI.register(&router, context)
        BrandingAPI.register(&router, context)
        DocumentAPI.register(&router, context)
        if configuration.demo { DemoPage.register(&router, context) }
        routes = router.routes.map { ($0.method, $0.pattern) }
        methods = router.methods
        self.router = router
        do {
            // Frames, comparisons and reference photos run on as many workers as there are
            // analyzers, so that the HTTP threads keep answering everything else.
            var http = HTTPServer.Configuration(host: configuration.host, port: configuration.port, threads: configuration.threads,
                                                workers: configuration.threads, connectionsPerAddress: configuration.connectionsPerAddress)
            http.trustedProxies = configuration.trustedProxies
            http.backgroundQueue = DocumentAdmission.maxInFlight
            let methods = self.methods
            self.http = try HTTPServer(configuration: http, router: router) { request, response, milliseconds in
                Self.observe(request, response, milliseconds, methods: methods, context)
            }
        } catch {
            throw ServerError(description: error.description)
        }
        context.admission.measureQueue { [weak http] in http?.queuedRequests ?? 0 }
        context.documents.measureLoad { [weak http] in http?.backgroundRequests ?? 0 }
        let host = configuration.host == "0.0.0.0" || configuration.host == "::" ? "127.0.0.1"
            : configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        context.baseURL = configuration.baseURL ?? "http://\(host):\(http.port)"
        self.context = context
        worker = BackgroundWorker(context: context)
    }

    /// The answer to `request` without the socket, as the server would give it over HTTP (after
    /// the body limit, the route's admission included): for tests of what the handlers do rather
    /// than of HTTP itself.
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        let started = ContinuousClock.now
        var request = request
        let (_, refusal) = router.admission(method: request.method, path: request.path) { request }
        let response = router.respond(to: &request, refusal: refusal)
        let elapsed = ContinuousClock.now - started
        Self.observe(request, response, elapsed.milliseconds, methods: methods, context)
        return response
    }

    /// Counts the answer and writes its access line. The method is one of `methods` (those the
    /// routes answer) or `other`, and the route a registered pattern or `unmatched`: a client
    /// chooses neither, so it can neither break the metrics' text nor grow it.
    private static func observe(_ request: HTTPRequest, _ response: HTTPResponse, _ milliseconds: Double, methods: Set<String>, _ context: ServerContext) {
        var request = request
        if !methods.contains(request.method) { request.method = "other" }
        context.metrics.add(responseCounters[min(max(response.status / 100, 1), 5) - 1])
        context.metrics.observe("vigil_http_request_duration_ms", labels: Metrics.labels(["method": request.method, "route": request.route ?? "unmatched"]),
                                milliseconds: milliseconds)
        log(request, response, milliseconds, to: context.logger)
    }

    /// One access line per request (method, route template, status, duration, request id and
    /// tenant; never a token, key, query or body), and every 5xx with its cause.
    static func log(_ request: HTTPRequest, _ response: HTTPResponse, _ milliseconds: Double, to logger: any Logger) {
        // A busy server refusing work says so in 503 `server_busy`: flow control, not a fault.
        let fault = response.status >= 500 && response.errorCode != APIErrorCode.serverBusy.rawValue
        guard fault || logger.level <= .info else { return }
        var fields: [String: LogValue] = [
            "method": .text(request.method), "route": .text(request.route ?? "unmatched"), "status": .integer(response.status),
            "ms": .number(milliseconds), "requestId": .text(request.requestId),
        ]
        if let tenantId = request.notes.tenantId { fields["tenantId"] = .text(tenantId) }
        if let code = response.errorCode { fields["code"] = .text(code) }
        if fault {
            fields["cause"] = .text(response.cause ?? "unknown")
            logger.log(.error, "server_error", fields)
        } else {
            logger.log(.info, "request", fields)
        }
    }

    /// Counter names per status class, made once (this runs on every request).
    static let responseCounters = (1...5).map { "vigil_http_responses_total{class=\"\($0)xx\"}" }

    /// Opens the SQLite store in `directory`, creating it; the directory is the owner's only (0700).
    public static func openStore(_ directory: URL) throws(ServerError) -> SQLiteStore {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        } catch {
            throw ServerError(description: "cannot create the data directory \(directory.path)")
        }
        do {
            return try SQLiteStore(path: directory.appendingPathComponent("vigil.sqlite").path)
        } catch {
            throw ServerError(description: error.description)
        }
    }

    /// Connects to the PostgreSQL database at `url` with up to `connections` connections and
    /// migrates it. The error never repeats the URL, which may carry a password.
    public static func openStore(database url: String, connections: Int) throws(ServerError) -> PostgresStore {
        do {
            return try PostgresStore(url: url, connections: connections)
        } catch {
            throw ServerError(description: "cannot open the PostgreSQL database: \(error.description)")
        }
    }

    /// Stops accepting, drains requests in progress, stops, and rids the database's files of
    /// what was erased or purged (`SessionLifecycle.reclaim`).
    public func shutdown() {
        http.shutdown()
        worker.stop()
        context.lifecycle.reclaim()
    }
}
