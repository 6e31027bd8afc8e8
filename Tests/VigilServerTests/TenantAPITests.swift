import Foundation
import Testing
import VigilTestSupport
import VigilCore
import VigilStore
@testable import VigilServer

@Suite(.serialized) struct TenantAPITests {
    @Test func creatingASessionNeedsAValidAPIKey() throws {
        let t = try TestServer(inProcess: true, faces: .none)
        #expect(t.json("POST", "/v1/sessions", tenant: nil, ["riskLevel": "low"]).errorCode == "missing_api_key")
        let wrong = t.request("POST", "/v1/sessions", bearer: "vk_live_guessed", body: Array("{}".utf8))
        #expect(wrong.status == 401 && wrong.errorCode == "invalid_api_key")
        #expect(try t.store.sessions(tenantId: nil, limit: 10).isEmpty)
    }

    @Test func aCreatedSessionCarriesItsTokenOnlyInTheCaptureURLFragment() throws {
        let t = try TestServer(inProcess: true, faces: .none)
        let response = t.json("POST", "/v1/sessions", ["riskLevel": "high", "externalRef": "order-1", "ssid": "dev-9"])
        #expect(response.status == 201)
        let body = response.json
        let id = try #require(body["sessionId"] as? String), token = try #require(body["sessionToken"] as? String)
        #expect(body["captureUrl"] as? String == "\(t.server.baseURL)/c/\(id)#\(token)")
        let stored = try #require(try t.store.session(id: id, tenantId: t.tenantIds["a"]!))
        #expect(stored.tokenHash != token && stored.tokenHash.count == 64 && stored.policy == .preset(.high))
        let read = t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["a"])
        #expect(read.status == 200 && read.json["status"] as? String == "created" && read.json["externalRef"] as? String == "order-1")
        #expect(read.headers["x-request-id"] != nil)
        // The token and the session's personal data are never kept by a cache.
        #expect(response.headers["cache-control"] == "no-store" && read.headers["cache-control"] == "no-store")
    }

    @Test func anotherTenantsSessionIsNotFound() throws {
        let t = try TestServer(inProcess: true, faces: .none)
        let (id, _) = t.createSession(tenant: "a")
        let foreign = t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["b"])
        let missing = t.request("GET", "/v1/sessions/ses_nothing", bearer: t.apiKeys["b"])
        #expect(foreign.status == 404 && foreign.errorCode == "session_not_found")
        #expect(foreign.errorCode == missing.errorCode)
        #expect(t.request("DELETE", "/v1/sessions/\(id)", bearer: t.apiKeys["b"]).status == 404)
        #expect(try t.store.session(id: id, tenantId: t.tenantIds["a"]!)?.status == .created)
    }

    @Test func anIdempotencyKeyReplaysTheSameSessionAndRefusesAnotherBody() throws {
        let t = try TestServer(inProcess: true, faces: .none)
        let first = t.json("POST", "/v1/sessions", ["riskLevel": "low"], headers: ["Idempotency-Key": "k-1"])
        let again = t.json("POST", "/v1/sessions", ["riskLevel": "low"], headers: ["Idempotency-Key": "k-1"])
        #expect(first.status == 201 && again.status == 201)
        #expect(first.json["sessionId"] as? String == again.json["sessionId"] as? String)
        #expect(again.headers["idempotent-replayed"] == "true" && again.headers["cache-control"] == "no-store")
        let different = t.json("POST", "/v1/sessions", ["riskLevel": "high"], headers: ["Idempotency-Key": "k-1"])
        #expect(different.status == 409 && different.errorCode == "idempotency_conflict")
        // The same key is another tenant's own.
        #expect(t.json("POST", "/v1/sessions", tenant: "b", ["riskLevel": "high"], headers: ["Idempotency-Key": "k-1"]).status == 201)
        #expect(try t.store.sessions(tenantId: t.tenantIds["a"]!, limit: 10).count == 1)
    }

    @Test func aStoredIdempotentAnswerHoldsNoTokenOpensOnlyForItsAPIKeyAndExpires() throws {
        let t = try TestServer(inProcess: true, faces: .none)
        let first = t.json("POST", "/v1/sessions", ["riskLevel": "low"], headers: ["Idempotency-Key": "k-2"])
        let token = try #require(first.json["sessionToken"] as? String)
        let stored = try #require(try t.store.idempotency(tenantId: t.tenantIds["a"]!, key: "k-2"))
        #expect(!String(decoding: stored.body, as: UTF8.self).contains(token) && !stored.body.isEmpty)
        // A second API key of the same tenant cannot read the first one's answer.
        let otherKey = "vk_live_" + UUID().uuidString
        #expect(try t.store.insertAPIKey(APIKeyRecord(id: "ak_other", tenantId: t.tenantIds["a"]!, prefix: nil, createdAt: Date()),
                                         hash: Identifiers.hash(otherKey), maxLive: 2))
        let other = t.request("POST", "/v1/sessions", bearer: otherKey, headers: ["Idempotency-Key": "k-2", "Content-Type": "application/json"],
                              body: Array(#"{"riskLevel":"low"}"#.utf8))
        #expect(other.status == 409 && other.errorCode == "idempotency_conflict")
        // A day later the answer is gone and the key makes a new session.
        t.clock.advance(by: 24 * 3600 + 1)
        let later = t.json("POST", "/v1/sessions", ["riskLevel": "low"], headers: ["Idempotency-Key": "k-2"])
        #expect(later.status == 201 && later.headers["idempotent-replayed"] == nil)
        #expect(later.json["sessionId"] as? String != first.json["sessionId"] as? String)
        // ...whose answer is kept in place of the expired one (which the purge had not reached yet).
        let replayed = t.json("POST", "/v1/sessions", ["riskLevel": "low"], headers: ["Idempotency-Key": "k-2"])
        #expect(replayed.headers["idempotent-replayed"] == "true" && replayed.json["sessionId"] as? String == later.json["sessionId"] as? String)
    }

    @Test func badBodiesGetTheirOwnErrorAndStoreNothing() throws {
        let t = try TestServer()
        let cases: [([UInt8], String)] = [
            (Array("{not json".utf8), "invalid_json"),
            (Array("[1,2]".utf8), "invalid_json"),
            (Array(#"{"riskLevel": 3}"#.utf8), "invalid_field"),
            (Array(#"{"riskLevel": "extreme"}"#.utf8), "invalid_field"),
            (Array(#"{"riskLevel": "low", "admin": true}"#.utf8), "unknown_field"),
            (Array(#"{"riskLevel": "low", "policy": {"count": 1}}"#.utf8), "invalid_field"),
            (Array(#"{"policy": {"count": 2, "challengeTimeout": 500}}"#.utf8), "invalid_policy"),
            (Array(#"{"policy": {"motions": ["fly"], "count": 1}}"#.utf8), "invalid_field"),
            (Array("{\"externalRef\": \"\(String(repeating: "x", count: 300))\"}".utf8), "invalid_field"),
            (Array(#"{"locale": "en\"><script>"}"#.utf8), "invalid_field"),
            (Array(#"{"locale": "pt--BR"}"#.utf8), "invalid_field"),
            (Array(#"{"redirectUrl": "javascript:alert(1)"}"#.utf8), "invalid_field"),
            (Array(#"{"redirectUrl": "https://app.example/\"><x>"}"#.utf8), "invalid_field"),
        ]
        for (body, code) in cases {
            let response = t.request("POST", "/v1/sessions", bearer: t.apiKeys["a"], body: body)
            #expect(response.status == 400, "\(String(decoding: body, as: UTF8.self))")
            #expect(response.errorCode == code, "\(String(decoding: body, as: UTF8.self)): \(String(decoding: response.body, as: UTF8.self))")
        }
        let policy = t.request("POST", "/v1/sessions", bearer: t.apiKeys["a"], body: Array(#"{"policy": {"count": 2, "challengeTimeout": 500}}"#.utf8))
        #expect(String(decoding: policy.body, as: UTF8.self).contains("challengeTimeout"))
        // An announced oversized body is refused before it is sent (to a client waiting for 100-continue).
        let client = try RawHTTPClient(port: t.port)
        client.send(Array("POST /v1/sessions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(t.apiKeys["a"]!)\r\nExpect: 100-continue\r\nContent-Length: \(PhotoUpload.bodyLimitForOne + 1)\r\n\r\n".utf8))
        let huge = try client.readResponse()
        #expect(huge.status == 413 && huge.error?.code == "body_too_large")
        #expect(try t.store.sessions(tenantId: nil, limit: 10).isEmpty)
    }

    @Test func erasingASessionCancelsItDeletesItsAuditImageAndEndsTheDeviceToken() throws {
        let t = try TestServer(inProcess: true, faces: .standIn)
        let (id, token) = t.createSession()
        let jpeg = try DeviceAPITests.jpegFrame()
        #expect(t.request("POST", "/v1/client/frames", bearer: token, headers: ["Content-Type": "image/jpeg", "Vigil-Capture-Time": "0"],
                          body: jpeg).status == 200)
        // The well-placed frame is the audit image, as uploaded.
        #expect(try t.store.auditImage(sessionId: id)?.jpeg == jpeg)
        let read = t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["a"])
        #expect((read.json["auditImage"] as? String).flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) } == jpeg)
        let erased = t.request("DELETE", "/v1/sessions/\(id)", bearer: t.apiKeys["a"])
        #expect(erased.status == 200 && erased.json["status"] as? String == "cancelled")
        #expect(try t.store.session(id: id, tenantId: t.tenantIds["a"]!)?.engineState == nil)
        #expect(try t.store.auditImage(sessionId: id) == nil)
        #expect(t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["a"]).json["auditImage"] == nil)
        let frame = t.request("POST", "/v1/client/frames", bearer: token, headers: ["Content-Type": "image/jpeg", "Vigil-Capture-Time": "0"],
                              body: [0xFF, 0xD8, 0xFF, 0xE0])
        #expect(frame.status == 409 && frame.errorCode == "session_finished")
    }

    /// `DELETE` on a completed session takes the ssid, the location's coordinates and the device
    /// id out of the session, out of its result (signed again, and still verifying) and out of
    /// the payload of its webhook not yet delivered.
    @Test func erasingACompletedSessionRemovesItsPersonalDataFromTheResultAndThePendingWebhook() throws {
        let t = try TestServer(allowPrivateWebhooks: true, checkCaptureClock: false, inProcess: true, faces: .none)
        #expect(t.json("PUT", "/v1/webhooks", ["url": "http://127.0.0.1:9/hook"]).status == 200)   // nothing listens: it stays pending
        let (id, token) = t.createSession(["riskLevel": "low", "collectLocation": true, "ssid": "ssid-of-a-person"])
        func report(_ path: String, _ body: [String: Any]) -> Int {
            t.request("POST", path, bearer: token, headers: ["Content-Type": "application/json"],
                      body: [UInt8](try! JSONSerialization.data(withJSONObject: body))).status
        }
        #expect(report("/v1/client/location", ["status": "granted", "latitude": -23.55, "longitude": -46.63, "accuracyMeters": 30]) == 200)
        #expect(report("/v1/client/device", ["deviceId": "device-0123456789"]) == 200)
        #expect(t.request("POST", "/v1/client/finish", bearer: token).status == 200)
        let personal = ["ssid-of-a-person", "-23.55", "-46.63", "device-0123456789"]
        func contains(_ bytes: [UInt8], _ text: String) -> Bool { String(decoding: bytes, as: UTF8.self).contains(text) }
        let before = try #require(try t.store.webhooks(sessionId: id).first)
        #expect(personal.allSatisfy { contains(before.payload, $0) || $0 == "ssid-of-a-person" })

        #expect(t.request("DELETE", "/v1/sessions/\(id)", bearer: t.apiKeys["a"]).status == 200)
        let read = t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["a"])
        #expect(read.status == 200 && read.json["ssid"] == nil)
        #expect(personal.allSatisfy { !contains(read.body, $0) }, "\(String(decoding: read.body, as: UTF8.self))")
        let risk = read.json["risk"] as? [String: Any]
        #expect((risk?["location"] as? [String: Any])?["status"] as? String == "granted" && risk?["deviceId"] == nil)
        let jws = try CompactJWS(parsing: try #require(read.json["signedResult"] as? String))
        let jwks = try #require(t.request("GET", "/.well-known/jwks.json").decode(JWKSet.self))
        #expect(jws.isSigned(by: try #require(jwks.key(id: jws.header.kid ?? "")?.ed25519PublicKey)))
        #expect(personal.allSatisfy { !contains(jws.payload, $0) })
        #expect(try JSONDecoder().decode(VerdictPayload.self, from: Data(jws.payload)).outcome == "failed")
        let after = try #require(try t.store.webhooks(sessionId: id).first { $0.id == before.id })
        #expect(after.state == .pending && personal.allSatisfy { !contains(after.payload, $0) })
        #expect(contains(after.payload, jws.compact))
    }

    @Test func theBackgroundPurgeDeletesAuditImagesPastRetentionAndKeepsTheSession() throws {
        let t = try TestServer(sessionLifetime: 7200, retention: 3600, inProcess: true, faces: .standIn)
        let (id, token) = t.createSession()
        #expect(t.request("POST", "/v1/client/frames", bearer: token, headers: ["Content-Type": "image/jpeg", "Vigil-Capture-Time": "0"],
                          body: try DeviceAPITests.jpegFrame()).status == 200)
        #expect(try t.store.auditImage(sessionId: id) != nil)
        t.clock.advance(by: 3601)
        var waited = 0.0
        while try t.store.auditImage(sessionId: id) != nil, waited < 5 {
            Thread.sleep(forTimeInterval: 0.2)
            waited += 0.2
        }
        #expect(try t.store.auditImage(sessionId: id) == nil)
        #expect(try t.store.session(id: id, tenantId: t.tenantIds["a"]!)?.status == .capturing)
        #expect(String(decoding: t.request("GET", "/metrics").body, as: UTF8.self).contains("vigil_personal_data_purged_total "))
    }

    @Test func manyFailedSessionsOfOneSsidRaiseTheNextSessionsPolicyVisibly() throws {
        let t = try TestServer(inProcess: true, faces: .none)
        func failedSession(_ tenant: String, _ ssid: String) {
            let (_, token) = t.createSession(tenant: tenant, ["riskLevel": "low", "ssid": ssid])
            #expect(t.request("POST", "/v1/client/finish", bearer: token).json["outcome"] as? String == "failed")
        }
        for _ in 0..<5 { failedSession("a", "device-1") }
        func next(_ tenant: String, _ ssid: String) -> [String: Any] {
            let (id, _) = t.createSession(tenant: tenant, ["riskLevel": "low", "ssid": ssid])
            return t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys[tenant]).json
        }
        // Five failures are within the limit.
        var view = next("a", "device-1")
        #expect((view["policy"] as? [String: Any])?["type"] as? String == "motion")
        #expect(((view["risk"] as? [String: Any])?["velocity"] as? [String: Any])?["failedSessions"] as? Int == 5)
        failedSession("a", "device-1")
        view = next("a", "device-1")
        #expect((view["policy"] as? [String: Any])?["type"] as? String == "both")
        let velocity = (view["risk"] as? [String: Any])?["velocity"] as? [String: Any]
        #expect(velocity?["failedSessions"] as? Int == 6 && velocity?["raised"] as? Bool == true && velocity?["windowSeconds"] as? Int == 180)
        // Another device, or the same hint at another tenant, is not affected.
        #expect((next("a", "device-2")["policy"] as? [String: Any])?["type"] as? String == "motion")
        #expect((next("b", "device-1")["policy"] as? [String: Any])?["type"] as? String == "motion")
        // The signal is in the signed result too.
        let (_, token) = t.createSession(["riskLevel": "low", "ssid": "device-1"])
        let finished = t.request("POST", "/v1/client/finish", bearer: token)
        let jws = try CompactJWS(parsing: try #require(finished.json["signedResult"] as? String))
        let payload = try JSONDecoder().decode(VerdictPayload.self, from: Data(jws.payload))
        #expect(payload.risk?.velocity?.raised == true)
    }

    @Test func anSDKSsidCountsItsDeviceUnderEveryVerdictAndAFlaggedOneRaisesThePolicy() throws {
        let t = try TestServer(inProcess: true, faces: .none)
        let device = String(repeating: "0a", count: 16)
        func create(_ ssid: String) -> (policy: [String: Any]?, risk: [String: Any]?) {
            let (id, _) = t.createSession(["riskLevel": "low", "ssid": ssid])
            let view = t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["a"]).json
            return (view["policy"] as? [String: Any], view["risk"] as? [String: Any])
        }
        var seen = create("\(device).clean")
        #expect(seen.policy?["type"] as? String == "motion" && seen.risk?["deviceIntegrity"] as? String == "clean")
        seen = create("\(device).flagged")
        #expect(seen.policy?["type"] as? String == "both" && seen.risk?["deviceIntegrity"] as? String == "flagged")
        // Hints of the app's own that merely look alike are not read as SDK ones.
        for other in ["\(device.uppercased()).flagged", "\(device).tampered", "\(device.dropLast()).flagged", "\(device).flagged.x"] {
            seen = create(other)
            #expect(seen.policy?["type"] as? String == "motion" && seen.risk?["deviceIntegrity"] == nil, "\(other)")
        }
        // Failures under one verdict count for the others: flipping the suffix does not reset velocity.
        for i in 0..<6 {
            let (_, token) = t.createSession(["riskLevel": "low", "ssid": "\(device).\(i.isMultiple(of: 2) ? "clean" : "unchecked")"])
            #expect(t.request("POST", "/v1/client/finish", bearer: token).json["outcome"] as? String == "failed")
        }
        seen = create("\(device).unchecked")
        let velocity = seen.risk?["velocity"] as? [String: Any]
        #expect(velocity?["failedSessions"] as? Int == 6 && velocity?["raised"] as? Bool == true && seen.policy?["type"] as? String == "both")
    }

    @Test func publicEndpointsAnswer() throws {
        let t = try TestServer()
        let health = t.request("GET", "/healthz")
        #expect(health.status == 200 && health.json["version"] as? String == VigilVersion.current)
        #expect((health.json["engineVersion"] as? String)?.isEmpty == false)
        #expect(t.request("GET", "/readyz").status == 200)
        let jwks = t.request("GET", "/.well-known/jwks.json").decode(JWKSet.self)
        #expect(jwks?.keys.count == 1 && jwks?.keys.first?.crv == "Ed25519")
        let metrics = String(decoding: t.request("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains("vigil_http_responses_total{class=\"2xx\"}"))
        // The page runs only the script carrying this response's nonce, and cannot be framed.
        let page = t.request("GET", "/c/ses_x")
        let policy = page.headers["content-security-policy"] ?? ""
        let nonce = policy.components(separatedBy: "'nonce-").dropFirst().first?.components(separatedBy: "'").first ?? "?"
        #expect(page.status == 200 && String(decoding: page.body, as: UTF8.self).contains("<script nonce=\"\(nonce)\" src=\"/c/assets/capture.js\">"))
        #expect(policy.contains("frame-ancestors 'none'") && !policy.contains("unsafe-inline") && nonce.count >= 22)
        #expect(t.request("GET", "/c/ses_x").headers["content-security-policy"] != policy)
        #expect(t.request("GET", "/c/assets/capture.js").headers["content-type"]?.hasPrefix("text/javascript") == true)
        #expect(t.request("GET", "/c/assets/i18n-zh-Hans.json").decode([String: String].self)?["start"] == "开始")
        #expect(t.request("GET", "/c/assets/..%2Fvigil.sqlite").status == 404 && t.request("GET", "/c/assets/index.html").status == 404)
        #expect(t.request("GET", "/nowhere").errorCode == "not_found")
    }
}
