import Foundation
import Synchronization
import Testing
import VigilCore
import VigilCrypto
import VigilHTTP
@testable import VigilServer
import VigilStore

/// A local endpoint that records what it receives and answers the statuses it is given.
final class WebhookReceiver: Sendable {
    struct Received: Sendable { let body: [UInt8], signature: String? }
    final class Log: Sendable {
        let received = Mutex<[Received]>([])
        let statuses: Mutex<[Int]>
        /// Requests to `/held` waiting now, the most that ever waited at once, and whether they
        /// were let go.
        let held = Mutex(0), peakHeld = Mutex(0), released = Mutex(false)
        init(statuses: [Int]) { self.statuses = Mutex(statuses) }
    }
    let log: Log
    let server: HTTPServer

    init(statuses: [Int] = []) throws {
        let log = Log(statuses: statuses)
        self.log = log
        var router = Router()
        router.add("POST", "/hook", bodyLimit: 1 << 20) { request in
            log.received.withLock { $0.append(Received(body: request.body, signature: request.header("vigil-signature"))) }
            let status = log.statuses.withLock { $0.isEmpty ? 200 : $0.removeFirst() }
            return .text("ok", status: status)
        }
        // An endpoint that sends the POST on elsewhere (here, back to /hook).
        router.add("POST", "/redirect", bodyLimit: 1 << 20) { _ in
            HTTPResponse(status: 307, headers: [("Location", "/hook")], body: [])
        }
        // A slow endpoint: it answers once the test lets it go, or after 8 s, inside the sender's
        // 10 s timeout (a timed-out delivery would free its lane while its request still waits here).
        // On worker threads: two connections accepted by one HTTP thread would otherwise wait in turn.
        router.add("POST", "/held", bodyLimit: 1 << 20, lane: .workers) { request in
            let now = log.held.withLock { $0 += 1; return $0 }
            log.peakHeld.withLock { $0 = max($0, now) }
            let deadline = Date().addingTimeInterval(8)
            while !log.released.withLock({ $0 }), Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            log.held.withLock { $0 -= 1 }
            log.received.withLock { $0.append(Received(body: request.body, signature: request.header("vigil-signature"))) }
            return .text("ok")
        }
        server = try HTTPServer(configuration: .init(port: 0, threads: 4, workers: 4), router: router)
    }

    var url: String { "http://127.0.0.1:\(server.port)/hook" }
    var heldURL: String { "http://127.0.0.1:\(server.port)/held" }

    func waitFor(_ count: Int, seconds: Double) -> [Received] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let now = log.received.withLock { $0 }
            if now.count >= count { return now }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return log.received.withLock { $0 }
    }
}

@Suite(.serialized) struct WebhookTests {
    static func verify(_ r: WebhookReceiver.Received, secret: String) -> Bool {
        guard let header = r.signature else { return false }
        let parts = Dictionary(header.split(separator: ",").compactMap { p -> (String, String)? in
            let kv = p.split(separator: "=", maxSplits: 1)
            return kv.count == 2 ? (String(kv[0]), String(kv[1])) : nil
        }, uniquingKeysWith: { a, _ in a })
        guard let t = parts["t"], let v1 = parts["v1"].flatMap(Hex.decode) else { return false }
        return HMACSHA256.isValid(v1, for: Array("\(t).".utf8) + r.body, key: Array(secret.utf8))
    }

    @Test func privateWebhookTargetsAreRefusedUnlessAllowed() throws {
        let t = try TestServer(inProcess: true, faces: .none)
        for url in ["http://127.0.0.1:9/hook", "http://10.1.2.3/x", "http://169.254.169.254/latest", "http://[::1]/x", "ftp://example.com/x", "not a url"] {
            let response = t.json("PUT", "/v1/webhooks", ["url": url])
            #expect(response.status == 400 && response.errorCode == "invalid_webhook_url", "\(url)")
        }
        #expect(t.request("GET", "/v1/webhooks", bearer: t.apiKeys["a"]).json["configured"] as? Bool == false)
        #expect(try t.store.tenant(id: t.tenantIds["a"]!)?.webhookURL == nil)
    }

    @Test func aCancelledSessionIsDeliveredSignedAndTheSecretShownOnce() throws {
        let receiver = try WebhookReceiver()
        let t = try TestServer(allowPrivateWebhooks: true, inProcess: true, faces: .none)
        let set = t.json("PUT", "/v1/webhooks", ["url": receiver.url])
        let secret = try #require(set.json["secret"] as? String)
        #expect(t.request("GET", "/v1/webhooks", bearer: t.apiKeys["a"]).json["secret"] == nil)
        let (id, token) = t.createSession()
        #expect(t.request("POST", "/v1/client/cancel", bearer: token).status == 200)
        let got = receiver.waitFor(1, seconds: 5)
        #expect(got.count == 1)
        let event = try #require(got.first)
        #expect(Self.verify(event, secret: secret))
        #expect(!Self.verify(event, secret: secret + "x"))
        let body = (try JSONSerialization.jsonObject(with: Data(event.body))) as? [String: Any]
        #expect(body?["type"] as? String == "session.cancelled" && body?["sessionId"] as? String == id)
        // The worker records the answer just after it arrives.
        for _ in 0..<30 where try t.store.webhooks(tenantId: t.tenantIds["a"]!, limit: 10).first?.state != .delivered {
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(try t.store.webhooks(tenantId: t.tenantIds["a"]!, limit: 10).first?.state == .delivered)
        // Tenant b configured nothing and hears nothing.
        #expect(try t.store.webhooks(tenantId: t.tenantIds["b"]!, limit: 10).isEmpty)
    }

    /// Twenty sessions of one tenant ending at once: freed lanes take the next delivery at once,
    /// each delivered once. At one start per lane and tick, the twenty took ten seconds.
    @Test func aTenantsBacklogDrainsAsLanesFreeUpAndEachDeliveryGoesOnce() throws {
        let receiver = try WebhookReceiver()
        let t = try TestServer(allowPrivateWebhooks: true, inProcess: true, faces: .none)
        #expect(t.json("PUT", "/v1/webhooks", ["url": receiver.url]).status == 200)
        let ids = (0..<20).map { _ in t.createSession() }
        for (_, token) in ids { #expect(t.request("POST", "/v1/client/cancel", bearer: token).status == 200) }
        let started = Date()
        let got = receiver.waitFor(20, seconds: 15)
        let elapsed = Date().timeIntervalSince(started)
        #expect(got.count == 20)
        #expect(elapsed < 6, "twenty deliveries took \(elapsed) s")
        Thread.sleep(forTimeInterval: 2.5)   // the worker's later due lists name none of them again: nothing goes twice
        let sessions = receiver.log.received.withLock { $0 }.compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.body)) as? [String: Any])?["sessionId"] as? String
        }
        #expect(sessions.count == 20 && Set(sessions) == Set(ids.map(\.id)))
    }

    @Test func aFailedDeliveryIsRetriedWithBackoff() throws {
        let receiver = try WebhookReceiver(statuses: [500])
        let t = try TestServer(allowPrivateWebhooks: true, inProcess: true, faces: .none)
        _ = t.json("PUT", "/v1/webhooks", ["url": receiver.url])
        let (_, token) = t.createSession()
        _ = t.request("POST", "/v1/client/cancel", bearer: token)
        #expect(receiver.waitFor(1, seconds: 5).count == 1)
        // The worker records the failed attempt just after the answer arrives.
        for _ in 0..<30 where try t.store.webhooks(tenantId: t.tenantIds["a"]!, limit: 1).first?.attempts ?? 0 == 0 {
            Thread.sleep(forTimeInterval: 0.1)
        }
        let failed = try #require(try t.store.webhooks(tenantId: t.tenantIds["a"]!, limit: 1).first)
        #expect(failed.state == .pending && failed.attempts == 1 && failed.lastError == "HTTP 500")
        // The first retry comes 4-6 s later.
        #expect(receiver.waitFor(2, seconds: 9).count == 2)
        // The worker records the answer just after it arrives.
        for _ in 0..<30 where try t.store.webhooks(tenantId: t.tenantIds["a"]!, limit: 1).first?.state != .delivered {
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(try t.store.webhooks(tenantId: t.tenantIds["a"]!, limit: 1).first?.state == .delivered)
    }

    /// Tenant a's endpoint holds every request; tenant b's webhook still goes out at once. a has
    /// at most two deliveries in flight; the third waits in the outbox until a lane is free.
    @Test func aSlowTenantsEndpointHoldsUpNoOtherTenant() throws {
        let slow = try WebhookReceiver(), fast = try WebhookReceiver()
        let t = try TestServer(allowPrivateWebhooks: true, inProcess: true, faces: .none)
        _ = t.json("PUT", "/v1/webhooks", tenant: "a", ["url": slow.heldURL])
        _ = t.json("PUT", "/v1/webhooks", tenant: "b", ["url": fast.url])
        for tenant in ["a", "a", "a", "b"] {
            let (_, token) = t.createSession(tenant: tenant)
            #expect(t.request("POST", "/v1/client/cancel", bearer: token).status == 200)
        }
        // b's arrives while a's are held, none of them answered yet.
        #expect(fast.waitFor(1, seconds: 8).count == 1)
        #expect(slow.log.received.withLock { $0.isEmpty })
        let deadline = Date().addingTimeInterval(5)
        while slow.log.held.withLock({ $0 }) < 2, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        slow.log.released.withLock { $0 = true }
        // All three of a's arrive, two at once: two lanes a tenant, each on its own connection.
        #expect(slow.waitFor(3, seconds: 20).count == 3)
        #expect(slow.log.peakHeld.withLock { $0 } == 2)
    }

    @Test func aDeliveryFollowsNoRedirect() throws {
        let receiver = try WebhookReceiver()
        let t = try TestServer(allowPrivateWebhooks: true, inProcess: true, faces: .none)
        _ = t.json("PUT", "/v1/webhooks", ["url": receiver.url.replacingOccurrences(of: "/hook", with: "/redirect")])
        let (_, token) = t.createSession()
        _ = t.request("POST", "/v1/client/cancel", bearer: token)
        for _ in 0..<50 where try t.store.webhooks(tenantId: t.tenantIds["a"]!, limit: 1).first?.attempts ?? 0 == 0 {
            Thread.sleep(forTimeInterval: 0.1)
        }
        let attempted = try #require(try t.store.webhooks(tenantId: t.tenantIds["a"]!, limit: 1).first)
        #expect(attempted.state == .pending && attempted.attempts == 1 && attempted.lastError == "HTTP 307")
        #expect(receiver.log.received.withLock { $0.isEmpty }, "the redirect was not followed to /hook")
    }

    /// The host is resolved once, for the check, and the POST connects to the address checked.
    /// `.invalid` never resolves (RFC 2606), so the delivery arrives only if nothing looked the
    /// name up again; a second lookup is what DNS rebinding turns to a private address.
    @Test func aDeliveryConnectsToTheAddressThatWasChecked() throws {
        let receiver = try WebhookReceiver()
        let url = "http://hooks.vigil.invalid:\(receiver.server.port)/hook"
        let target = try WebhookTarget.pin(url, allowPrivate: true) { _ in ["127.0.0.1"] }
        #expect(target.address == "127.0.0.1" && target.host == "hooks.vigil.invalid" && target.port == Int(receiver.server.port))
        #expect(WebhookHTTPClient.post(Array("{}".utf8), to: target, headers: [("Content-Type", "application/json")], timeout: 5) == nil)
        #expect(receiver.log.received.withLock { $0.map(\.body) } == [Array("{}".utf8)])
        // Without the pinned address the name does not resolve at all.
        #expect(WebhookTarget.refusal(url, allowPrivate: true) == "the webhook host 'hooks.vigil.invalid' does not resolve")
    }

    /// A name with any private address among its answers is refused at delivery, as when it is set.
    @Test func aNameResolvingToAPrivateAddressIsRefusedWhenDelivered() throws {
        for answers in [["10.0.0.7"], ["93.184.215.14", "127.0.0.1"], ["::ffff:169.254.169.254"], ["fd00::1"]] {
            #expect(throws: WebhookTarget.Refusal.self, "\(answers)") {
                try WebhookTarget.pin("https://hooks.example.com/x", allowPrivate: false) { _ in answers }
            }
        }
        let target = try WebhookTarget.pin("https://hooks.example.com/x", allowPrivate: false) { _ in ["93.184.215.14"] }
        #expect(target.port == 443 && target.address == "93.184.215.14")
    }

    @Test func theSweeperExpiresAnUntouchedSessionAndTellsTheTenant() throws {
        let receiver = try WebhookReceiver()
        let t = try TestServer(sessionLifetime: 60, allowPrivateWebhooks: true, inProcess: true, faces: .none)
        _ = t.json("PUT", "/v1/webhooks", ["url": receiver.url])
        let (id, _) = t.createSession()
        t.clock.advance(by: 61)
        let got = receiver.waitFor(1, seconds: 5)
        let body = got.first.flatMap { (try? JSONSerialization.jsonObject(with: Data($0.body))) as? [String: Any] }
        #expect(body?["type"] as? String == "session.expired")
        #expect(try t.store.session(id: id, tenantId: t.tenantIds["a"]!)?.status == .expired)
    }
}
