import Foundation
import VigilCore
import VigilFace
import VigilHTTP
import VigilServer
import VigilStore
import VigilTestSupport

/// A `vigil serve` of this process on loopback, with a tenant and a session to aim at.
final class FuzzServer {
    let server: VigilServer
    let directory: URL
    let apiKey: String
    let sessionToken: String
    let frame: [UInt8]

    init(frame: [UInt8]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-fuzz-\(UUID().uuidString)")
        let store = try VigilServer.openStore(directory)
        apiKey = try Administration.createTenant(name: "fuzz", in: store).apiKey
        var configuration = ServerConfiguration(dataDirectory: directory)
        configuration.port = 0
        // The fuzzer is one client sending as fast as it can: limits would refuse most inputs unread.
        configuration.rateLimits.enabled = false
        configuration.connectionsPerAddress = 0
        configuration.frameCapacity = 100_000
        configuration.maxFrameWait = nil
        server = try VigilServer(configuration: configuration, store: store, analyzers: AnalyzerPool(models: FaceModels(), size: 2))
        self.frame = frame
        let created = server.respond(to: HTTPRequest(method: "POST", path: "/v1/sessions", headers: ["Authorization": "Bearer \(apiKey)",
                                                     "Content-Type": "application/json"], body: Array(#"{"riskLevel":"low"}"#.utf8)))
        let body = try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any]
        sessionToken = body?["sessionToken"] as? String ?? ""
    }

    deinit {
        server.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Raw request bytes over a socket: request lines, headers and bodies of real requests, mutated.
struct RawRequestTarget: FuzzTarget {
    let name = "http-request"
    let server: FuzzServer
    private let seeds: [[UInt8]]

    init(server: FuzzServer) {
        self.server = server
        func request(_ head: String, _ body: [UInt8] = []) -> [UInt8] { Array(head.utf8) + body }
        let json = Array(#"{"riskLevel":"low","metadata":{"k":"v"}}"#.utf8)
        seeds = [
            request("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
            request("GET /v1/client/session HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(server.sessionToken)\r\n\r\n"),
            request("POST /v1/sessions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(server.apiKey)\r\nContent-Type: application/json\r\nContent-Length: \(json.count)\r\n\r\n", json),
            request("POST /v1/client/frames HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(server.sessionToken)\r\nContent-Type: image/jpeg\r\nVigil-Capture-Time: 0\r\nContent-Length: \(server.frame.count)\r\n\r\n", server.frame),
            request("POST /v1/sessions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(server.apiKey)\r\nTransfer-Encoding: chunked\r\n\r\n\(String(json.count, radix: 16))\r\n", json + Array("\r\n0\r\n\r\n".utf8)),
        ]
    }

    func run(index: Int, seed: UInt64) -> FuzzOutcome {
        var mutator = Mutator(seed: seed, index: index)
        let input = RequestCompletion.completed(mutator.bytes(seeds[index % seeds.count]))
        if let answer = exchange(input, timeout: 0.3) {
            // 505: libmicrohttpd's answer to a request line naming an HTTP version it does not
            // speak, the input's fault (counted apart).
            if answer.status == 505 { return .versionNotSupported }
            return answer.status >= 500 ? .serverError(answer.status) : answer.status < 300 ? .accepted : .handled
        }
        // No answer: the server closed the connection, or waits for more of a request still cut
        // short (a chunked body). Either way it must still answer everyone else at once.
        let began = ContinuousClock.now
        guard exchange(Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8), timeout: 1)?.status == 200,
              ContinuousClock.now - began < .seconds(1) else { return .stalled }
        return .noAnswer
    }

    /// `bytes` over a fresh connection, and the answer, or nil when the server closed the
    /// connection or sent nothing whole within `timeout` seconds.
    private func exchange(_ bytes: [UInt8], timeout: Double) -> RawHTTPClient.Response? {
        guard let client = try? RawHTTPClient(port: server.server.port, timeout: timeout) else { return nil }
        client.send(bytes)
        return try? client.readResponse()
    }
}

/// The JSON body of every endpoint that takes one, answered in process (no socket) with valid
/// credentials: only the body is wrong.
struct JSONBodyTarget: FuzzTarget {
    let name = "json-body"
    let server: FuzzServer
    private let seeds: [(method: String, path: String, device: Bool, body: [UInt8])]

    init(server: FuzzServer) {
        self.server = server
        let bodies: [(String, String, Bool, String)] = [
            ("POST", "/v1/sessions", false, #"{"riskLevel":"medium","locale":"fr","metadata":{"user":"42"},"redirectUrl":"https://example.com/done","collectLocation":true}"#),
            ("POST", "/v1/sessions", false, #"{"policy":{"motions":["blink","nod"],"count":2,"fixed":["blink"],"type":"both","challengeTimeout":12,"maxAttempts":2,"motionOnlyFallback":true}}"#),
            ("POST", "/v1/compare", false, #"{"imageA":"AAAA","imageB":"/9j/4AAQ"}"#),
            ("PUT", "/v1/webhooks", false, #"{"url":"https://93.184.216.34/hook"}"#),
            ("PUT", "/v1/branding", false, ##"{"name":"Acme","accentColor":"#112233","frameOrigins":["https://app.example.com"]}"##),
            ("POST", "/v1/client/device", true, #"{"deviceId":"0123456789abcdef0123456789abcdef"}"#),
            ("POST", "/v1/client/location", true, #"{"latitude":48.85,"longitude":2.35,"accuracy":20}"#),
            ("POST", "/v1/client/camera", true, #"{"label":"FaceTime HD Camera","kind":"user","count":1}"#),
        ]
        seeds = bodies.map { (method: $0.0, path: $0.1, device: $0.2, body: Array($0.3.utf8)) }
    }

    func run(index: Int, seed: UInt64) -> FuzzOutcome {
        var mutator = Mutator(seed: seed, index: index)
        let target = seeds[index % seeds.count]
        let bearer = target.device ? server.sessionToken : server.apiKey
        let request = HTTPRequest(method: target.method, path: target.path,
                                  headers: ["Authorization": "Bearer \(bearer)", "Content-Type": "application/json"], body: mutator.json(target.body))
        let status = server.server.respond(to: request).status
        return status >= 500 ? .serverError(status) : status < 300 ? .accepted : .handled
    }
}
