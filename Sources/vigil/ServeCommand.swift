import Foundation
import VigilCore
import VigilFace
import VigilHTTP
import VigilServer
import VigilStore

/// `vigil serve`: the verification server (docs/operations.md).
enum ServeCommand {
    static let usage = "usage: vigil serve [--host 127.0.0.1] [--port 8080] [--data ./vigil-data | --database postgres://...] [--database-connections 8] [--base-url URL] [--threads 2] [--connections-per-ip 64] [--frame-capacity 0] [--retention-days 7] [--trusted-proxies CIDR,...] [--demo] [--allow-private-webhooks] [--no-rate-limits] [--log-level info] [--metrics-token TOKEN]"

    static func run(_ arguments: [String]) throws -> Int32 {
        // Every option also comes from the environment (`VIGIL_PORT`, `VIGIL_METRICS_TOKEN`, ...).
        let args = try Arguments(arguments, valued: DataOption.names.union(["host", "port", "base-url", "database-connections", "threads", "connections-per-ip", "frame-capacity", "retention-days", "log-level", "metrics-token", "trusted-proxies"]),
                                 switches: ["allow-private-webhooks", "no-rate-limits", "demo"], environment: ProcessInfo.processInfo.environment)
        guard args.positionals.isEmpty else { throw CLIError.usage(usage) }
        var configuration = ServerConfiguration(dataDirectory: DataOption.directory(args))
        configuration.host = args.value("host") ?? "127.0.0.1"
        configuration.port = UInt16(try args.double("port", default: 8080, range: 0...65535))
        configuration.threads = Int(try args.double("threads", default: 2, range: 1...64))
        configuration.connectionsPerAddress = Int(try args.double("connections-per-ip", default: 64, range: 0...100_000))
        let capacity = try args.double("frame-capacity", default: 0, range: 0...100_000)
        configuration.frameCapacity = capacity > 0 ? capacity : nil
        configuration.retention = try args.double("retention-days", default: 7, range: 0.001...3650) * 86400
        configuration.baseURL = args.value("base-url").map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        configuration.allowPrivateWebhooks = args.has("allow-private-webhooks")
        configuration.rateLimits.enabled = !args.has("no-rate-limits")
        configuration.metricsToken = args.value("metrics-token")
        configuration.demo = args.has("demo")
        for cidr in (args.value("trusted-proxies") ?? "").split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !cidr.isEmpty {
            guard let range = IPRange(cidr) else { throw CLIError.usage("--trusted-proxies takes addresses or CIDR networks, not '\(cidr)'") }
            configuration.trustedProxies.append(range)
        }
        let levelName = args.value("log-level") ?? "info"
        guard let level = LogLevel(name: levelName) else {
            throw CLIError.usage("--log-level is one of \(LogLevel.allCases.map(\.name).joined(separator: ", ")), not '\(levelName)'")
        }
        let logger = JSONLinesLogger(level: level)

        let termination = TerminationSignal()
        let connections = Int(try args.double("database-connections", default: 8, range: 1...1000))
        let store = try DataOption.store(args, connections: connections)
        let storage = DataOption.database(args) == nil ? configuration.dataDirectory.path : "postgresql"
        // Only the demo makes a tenant of its own; a production start with an empty store says how
        // to make one, and prints no key.
        let demo = configuration.demo ? try Administration.createDemoTenantIfEmpty(in: store) : nil
        let empty = try store.tenants().isEmpty
        let models = try FaceModels()
        if !BLASRuntime.isThreadSafe {
            logger.log(.warning, "blas_not_thread_safe", ["note": "the loaded OpenBLAS is single-threaded, so face analysis runs one call at a time; install libopenblas0-pthread"])
        }
        let server: VigilServer
        do {
            server = try VigilServer(configuration: configuration, store: store, analyzers: AnalyzerPool(models: models, size: configuration.threads),
                                     logger: logger)
        } catch {
            throw CLIError(code: "serve_failed", message: "\(error)")
        }
        struct Started: Encodable {
            let listening: String, data: String, demoUrl: String?
            let demoTenant: Tenant?
            struct Tenant: Encodable { let tenantId: String, apiKey: String }
        }
        try printJSON(Started(listening: server.baseURL, data: storage, demoUrl: configuration.demo ? server.baseURL + "/demo" : nil,
                              demoTenant: demo.map { .init(tenantId: $0.tenant.id, apiKey: $0.apiKey) }))
        logger.log(.info, "started", ["listening": .text(server.baseURL), "data": .text(storage)])
        if demo != nil {
            logger.log(.warning, "demo_tenant_created", ["note": .text("its API key is shown once, on stdout; open \(server.baseURL)/demo in a browser")])
        } else if empty {
            let where_ = DataOption.database(args) == nil ? "--data \(configuration.dataDirectory.path)" : "--database URL"
            logger.log(.warning, "no_tenants", ["note": .text("create one with: vigil tenants create NAME \(where_)")])
        }
        termination.wait()
        logger.log(.info, "stopping", ["note": "draining requests in progress"])
        server.shutdown()
        return 0
    }

}

/// SIGTERM and SIGINT, caught from creation on: made before the server is announced, so a signal
/// sent right after the start line is never lost.
final class TerminationSignal {
    private let done = DispatchSemaphore(value: 0)
    private var sources: [DispatchSourceSignal] = []

    init() {
        for sig in [SIGTERM, SIGINT] {
            signal(sig, SIG_IGN)   // the default action would end the process before the source sees it
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { [done] in done.signal() }
            source.resume()
            sources.append(source)
        }
    }

    /// Blocks until one arrives.
    func wait() {
        done.wait()
        sources.forEach { $0.cancel() }
    }
}

/// Where the store is: `--database URL` (PostgreSQL; also `VIGIL_DATABASE_URL`), or else SQLite
/// in `--data DIR` (default ./vigil-data).
enum DataOption {
    /// The options it reads.
    static let names: Set<String> = ["data", "database"]

    static func directory(_ args: Arguments) -> URL {
        URL(fileURLWithPath: args.value("data") ?? "vigil-data", isDirectory: true)
    }

    /// The PostgreSQL URL given, if any.
    static func database(_ args: Arguments) -> String? {
        args.value("database") ?? ProcessInfo.processInfo.environment["VIGIL_DATABASE_URL"]
    }

    static func store(_ args: Arguments, connections: Int = 8) throws -> any Store {
        do {
            if let url = database(args) { return try VigilServer.openStore(database: url, connections: connections) }
            return try VigilServer.openStore(directory(args))
        } catch {
            throw CLIError(code: "data_unavailable", message: error.description)
        }
    }
}
