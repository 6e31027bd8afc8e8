import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing
import VigilCore
import VigilHTTP
import VigilTestSupport
import VigilVerifier

/// Two `vigil serve` processes on one PostgreSQL database, behind a round-robin proxy: the
/// deployment of `docs/deployment.md` on one machine. Any node continues any session, a node
/// killed mid-session loses nothing, and work shared through the database is done once.
@Suite(.serialized) struct MultiNodeTests {
    /// Nodes on a new database; the first one made the demo tenant.
    final class Cluster {
        let database: String
        let directories: [String]
        let nodes: [ServeCLITests.Served]

        init(nodes count: Int = 2) throws {
            database = try TestPostgres.newDatabase()
            directories = (0..<count).map { _ in ServeCLITests.temporaryData() }
            var nodes: [ServeCLITests.Served] = []
            // One after the other: the first finds the database empty and makes the demo tenant.
            for directory in directories {
                nodes.append(try ServeCLITests.Served(data: directory, extra: ["--database", database, "--allow-private-webhooks", "--no-rate-limits", "--demo"]))
            }
            self.nodes = nodes
        }

        var apiKey: String { ((nodes[0].started["demoTenant"] as? [String: Any])?["apiKey"] as? String) ?? "" }
        var tenantId: String { ((nodes[0].started["demoTenant"] as? [String: Any])?["tenantId"] as? String) ?? "" }
        var ports: [UInt16] { nodes.map { UInt16(URL(string: $0.base)?.port ?? 0) } }

        /// A session made on node `node`.
        func session(on node: Int, _ body: [String: Any] = ["riskLevel": "low"]) throws -> (id: String, token: String) {
            let (status, created) = ServeCLITests.http("POST", nodes[node].base + "/v1/sessions", bearer: apiKey, json: body)
            try #require(status == 201, "\(created)")
            return (try #require(created["sessionId"] as? String), try #require(created["sessionToken"] as? String))
        }

        func jwks(on node: Int) throws -> JWKSet {
            let (_, set) = ServeCLITests.http("GET", nodes[node].base + "/.well-known/jwks.json")
            return try JSONDecoder().decode(JWKSet.self, from: JSONSerialization.data(withJSONObject: set))
        }

        deinit {
            for node in nodes where node.process.isRunning { _ = node.stop(SIGTERM) }
            for directory in directories { try? FileManager.default.removeItem(atPath: directory) }
        }
    }

    /// A load balancer: each request goes to the next node in turn, skipping a node that refuses
    /// connections (one that was killed); a node that dies mid-request gets the client a 502.
    final class RoundRobinProxy: Sendable {
        /// A node to kill while it holds a frame request, once a challenge is under way.
        struct Victim: Sendable { let port: UInt16, pid: pid_t }
        final class Counts: Sendable {
            let turn = Mutex(0)
            /// Requests answered, by node port.
            let answered = Mutex<[UInt16: Int]>([:])
            /// Whether a frame answer showed an active challenge: the session is under way.
            let challengeActive = Mutex(false)
            /// The victim's answered requests when it was killed.
            let answeredAtKill = Mutex<Int?>(nil)
        }
        let counts: Counts
        let server: HTTPServer

        init(ports: [UInt16], victim: Victim? = nil) throws {
            let counts = Counts()
            self.counts = counts
            var router = Router()
            let routes = [("GET", "/v1/client/session"), ("POST", "/v1/client/frames"), ("POST", "/v1/client/finish"),
                          ("POST", "/v1/client/device"), ("POST", "/v1/client/cancel")]
            for (method, path) in routes {
                router.add(method, path, bodyLimit: 4 << 20, lane: .workers) { request in
                    let first = counts.turn.withLock { turn in
                        turn += 1
                        return turn
                    }
                    var headers = ["X-Forwarded-For": request.remoteAddress]
                    for name in ["authorization", "content-type", "vigil-capture-time"] { headers[name] = request.header(name) }
                    for i in 0..<ports.count {
                        let port = ports[(first + i) % ports.count]
                        guard let client = try? RawHTTPClient(port: port, timeout: 15) else { continue }
                        let killNow = path == "/v1/client/frames" && port == victim?.port && counts.answeredAtKill.withLock { $0 == nil }
                            && counts.challengeActive.withLock { $0 }
                        guard let answer = try? client.request(method, path, headers: headers, body: request.body, whileWaiting: {
                            guard killNow, let victim else { return }
                            counts.answeredAtKill.withLock { $0 = counts.answered.withLock { $0[port] ?? 0 } }
                            kill(victim.pid, SIGKILL)
                        }) else {
                            return .text("the node went away", status: 502)
                        }
                        counts.answered.withLock { $0[port, default: 0] += 1 }
                        if path == "/v1/client/frames", let json = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any],
                           (json["challenge"] as? [String: Any])?["state"] as? String == "active" {
                            counts.challengeActive.withLock { $0 = true }
                        }
                        let kept = answer.headers.filter { ["content-type", "retry-after", "cache-control"].contains($0.key) }
                        return HTTPResponse(status: answer.status, headers: kept.map { ($0.key, $0.value) }, body: answer.body)
                    }
                    return .text("no node answers", status: 503)
                }
            }
            server = try HTTPServer(configuration: .init(port: 0, threads: 2, workers: 8), router: router)
        }

        var base: String { "http://127.0.0.1:\(server.port)" }
        func answered(by port: UInt16) -> Int { counts.answered.withLock { $0[port] ?? 0 } }
        var answeredAtKill: Int? { counts.answeredAtKill.withLock { $0 } }
    }

    /// `vigil capture` of a live synthetic person through `server`, started in the background.
    static func capture(_ server: String, _ session: (id: String, token: String), seed: Int) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = CLITests.binary
        process.arguments = ["capture", "--server", server, "--session-id", session.id, "--token", session.token, "--synthetic", "live",
                             "--photo", "\(CLITests.fixtures)/obama.jpg", "--seed", String(seed)]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, out)
    }

    /// The last state `vigil capture` printed, once it exited.
    static func finalState(_ process: Process, _ out: Pipe) -> [String: Any] {
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n")
            .compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }.last ?? [:]
    }

    @Test func aLivePersonWhoseFramesAlternateBetweenTwoNodesPasses() throws {
        let cluster = try Cluster()
        let proxy = try RoundRobinProxy(ports: cluster.ports)
        var last: [String: Any] = [:], session = (id: "", token: "")
        for seed in 1...3 {   // live sessions have a measured BPCER: another person may try
            session = try cluster.session(on: seed % 2)
            let (process, out) = try Self.capture(proxy.base, session, seed: seed)
            last = Self.finalState(process, out)
            if last["outcome"] as? String == "passed" { break }
            print("two-node live capture rejected, trying another: \(last)")
        }
        #expect(last["outcome"] as? String == "passed", "\(last)")
        // Both nodes served the session, frame after frame: shares, not counts, since a busy
        // machine's paced camera sends fewer frames for the same capture time.
        let total = cluster.ports.map { proxy.answered(by: $0) }.reduce(0, +)
        for port in cluster.ports {
            #expect(total >= 10 && proxy.answered(by: port) >= total / 3, "node \(port) answered \(proxy.answered(by: port)) of \(total)")
        }
        // Signed by one node, verified with the other's key set: the keys live in the database.
        let jws = try #require(last["signedResult"] as? String)
        for node in 0..<2 {
            let verified = try VigilVerifier.verifyResult(jws: jws, jwks: try cluster.jwks(on: node), audience: cluster.tenantId, sessionId: session.id)
            #expect(verified.passed)
        }
    }

    /// Node A dies holding a frame of a session under way (its challenge active), so the
    /// client gets a 502; the client goes on through node B, which signs the result.
    @Test func aNodeKilledMidSessionLeavesItsSessionsToTheOther() throws {
        let cluster = try Cluster()
        let victim = cluster.ports[0]
        let proxy = try RoundRobinProxy(ports: cluster.ports, victim: .init(port: victim, pid: cluster.nodes[0].process.processIdentifier))
        let session = try cluster.session(on: 0)
        let (process, out) = try Self.capture(proxy.base, session, seed: 1)
        let last = Self.finalState(process, out)
        let answeredAtKill = try #require(proxy.answeredAtKill, "no frame reached node A while a challenge was active")
        cluster.nodes[0].process.waitUntilExit()
        #expect(cluster.nodes[0].process.terminationReason == .uncaughtSignal && proxy.answered(by: victim) == answeredAtKill)
        // The session ended with a result that node B signed and verifies; whether the person
        // passed is the engine's business (the live BPCER), not this test's.
        #expect(last["state"] as? String == "success", "\(last)")
        let jws = try #require(last["signedResult"] as? String)
        let verified = try VigilVerifier.verifyResult(jws: jws, jwks: try cluster.jwks(on: 1), audience: cluster.tenantId, sessionId: session.id)
        #expect(verified.claims.sub == session.id)
    }

    @Test func twoHundredSessionsEndedAcrossTwoNodesAreDeliveredOnceEach() throws {
        let cluster = try Cluster()
        let receiver = try WebhookCounter()
        // Set through node A; node B's deliveries are signed with the same secret.
        let (status, set) = ServeCLITests.http("PUT", cluster.nodes[0].base + "/v1/webhooks", bearer: cluster.apiKey, json: ["url": receiver.url])
        let secret = try #require(set["secret"] as? String, "\(status) \(set)")
        var ids: Set<String> = []
        for i in 0..<200 {
            let session = try cluster.session(on: i % 2, ["riskLevel": "free"])
            ids.insert(session.id)
            let (cancelled, _) = ServeCLITests.http("POST", cluster.nodes[(i + 1) % 2].base + "/v1/client/cancel", bearer: session.token)
            #expect(cancelled == 200)
        }
        let deadline = Date().addingTimeInterval(60)
        while receiver.log.received.withLock({ $0.count }) < 200, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        Thread.sleep(forTimeInterval: 3)   // two more worker passes on each node: nothing goes twice
        let received = receiver.log.received.withLock { $0 }
        let sessions = received.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.body)) as? [String: Any])?["sessionId"] as? String }
        #expect(received.count == 200 && Set(sessions) == ids, "\(received.count) deliveries for \(Set(sessions).count) sessions")
        #expect(received.allSatisfy { (try? VigilVerifier.verifyWebhook(body: $0.body, signatureHeader: $0.signature, secret: secret)) != nil })
    }

    @Test func brandingSetThroughOneNodeIsServedByTheOther() throws {
        let cluster = try Cluster()
        let (status, _) = ServeCLITests.http("PUT", cluster.nodes[0].base + "/v1/branding", bearer: cluster.apiKey,
                                             json: ["frameAncestors": ["https://shop.example"], "colors": ["accent": "#112233"]])
        #expect(status == 200)
        let session = try cluster.session(on: 0)
        let (_, branding) = ServeCLITests.http("GET", cluster.nodes[1].base + "/v1/client/branding", bearer: session.token)
        #expect((branding["colors"] as? [String: Any])?["accent"] as? String == "#112233")
        var request = URLRequest(url: try #require(URL(string: cluster.nodes[1].base + "/c/" + session.id)))
        request.httpMethod = "GET"
        let done = DispatchSemaphore(value: 0)
        final class Box: @unchecked Sendable { var policy: String? }
        let box = Box()
        URLSession.shared.dataTask(with: request) { _, response, _ in
            box.policy = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Security-Policy")
            done.signal()
        }.resume()
        done.wait()
        #expect(box.policy?.hasSuffix("frame-ancestors https://shop.example") == true, "\(box.policy ?? "none")")
    }

    @Test func anAPIKeyRevokedThroughOneNodeIsRefusedByBothAtOnce() throws {
        let cluster = try Cluster()
        // A rotation: a second key made through node 0, the first revoked through node 1.
        let (made, second) = ServeCLITests.http("POST", cluster.nodes[0].base + "/v1/api-keys", bearer: cluster.apiKey)
        let key = try #require(second["apiKey"] as? String, "\(made) \(second)")
        let (_, listed) = ServeCLITests.http("GET", cluster.nodes[1].base + "/v1/api-keys", bearer: key)
        let first = try #require((listed["keys"] as? [[String: Any]])?.first { $0["current"] == nil }?["keyId"] as? String)
        #expect(ServeCLITests.http("DELETE", cluster.nodes[1].base + "/v1/api-keys/\(first)", bearer: key).0 == 200)
        // No node caches keys: the very next request with the old key fails on both.
        for node in cluster.nodes {
            let (status, answer) = ServeCLITests.http("POST", node.base + "/v1/sessions", bearer: cluster.apiKey, json: ["riskLevel": "low"])
            #expect(status == 401 && (answer["error"] as? [String: Any])?["code"] as? String == "invalid_api_key")
            #expect(ServeCLITests.http("POST", node.base + "/v1/sessions", bearer: key, json: ["riskLevel": "low"]).0 == 201)
        }
    }

    @Test func aKeyRotatedOnTheDatabaseSignsOnOneNodeAndVerifiesOnTheOther() throws {
        let cluster = try Cluster()
        let before = try cluster.jwks(on: 1).keys.map(\.kid)
        let rotated = try CLITests.run(["keys", "rotate", "--database", cluster.database])
        let kid = try #require((rotated.json as? [String: Any])?["activeKid"] as? String, "\(rotated.stderr)")
        #expect(!before.contains(kid))
        // Each node reads the keys again within seconds.
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline, try !(0..<2).allSatisfy({ try cluster.jwks(on: $0).keys.contains { $0.kid == kid } }) {
            Thread.sleep(forTimeInterval: 0.2)
        }
        let session = try cluster.session(on: 0)
        let (finished, answer) = ServeCLITests.http("POST", cluster.nodes[0].base + "/v1/client/finish", bearer: session.token)
        let jws = try #require(answer["signedResult"] as? String, "\(finished) \(answer)")
        #expect(try CompactJWS(parsing: jws).header.kid == kid)
        let verified = try VigilVerifier.verifyResult(jws: jws, jwks: try cluster.jwks(on: 1), audience: cluster.tenantId, sessionId: session.id)
        #expect(verified.claims.sub == session.id && !verified.passed)
    }
}

/// Counts webhook deliveries with their signature header. It answers each after `delay`, as
/// real endpoints do, so a delivery is still in flight when the other node looks for due ones.
final class WebhookCounter: Sendable {
    struct Received: Sendable { let body: [UInt8], signature: String }
    final class Log: Sendable { let received = Mutex<[Received]>([]) }
    let log = Log()
    let server: HTTPServer

    init(delay: TimeInterval = 0.25) throws {
        var router = Router()
        let log = log
        router.add("POST", "/hook", bodyLimit: 1 << 20, lane: .workers) { request in
            Thread.sleep(forTimeInterval: delay)
            log.received.withLock { $0.append(Received(body: request.body, signature: request.header("vigil-signature") ?? "")) }
            return .text("ok")
        }
        server = try HTTPServer(configuration: .init(port: 0, threads: 2, workers: 16), router: router)
    }

    var url: String { "http://127.0.0.1:\(server.port)/hook" }
}
