import Foundation
import Testing
import VigilCore
import VigilFace
import VigilSDK
import VigilSynth
import VigilSynthCapture
import VigilTestSupport
import VigilVerifier

/// `VigilClient` with `HeadlessCaptureHost` against a running server: the state stream, the
/// signed result, and the backend's check of it with `VigilVerifier`.
@MainActor @Suite(.scratchFolder) struct HeadlessCaptureTests {
    func run(_ t: TestServer, _ policy: [String: Any], camera: any SyntheticCamera, seed: UInt64, paced: Bool = false) async throws
        -> (id: String, states: [VigilLivenessState], deviceId: String?) {
        let (id, token) = t.createSession(policy)
        let client = VigilClient(deviceIdStore: ScratchFolder.path("device-id"))
        try await client.initialize(config: VigilConfig(serverURL: URL(string: "http://127.0.0.1:\(t.port)")!, pollInterval: 0.2))
        #expect(client.versionInfo.engineVersion == nil)
        await client.prewarm()
        #expect(client.versionInfo.serverVersion == VigilVersion.current && client.versionInfo.engineVersion?.isEmpty == false)
        let source = SyntheticFrameSource(camera: camera, seed: seed, durationMs: 20_000, paced: paced)
        var states: [VigilLivenessState] = []
        for await state in client.startLivenessCheck(host: HeadlessCaptureHost { source }, sessionId: id, sessionToken: token) {
            states.append(state)
        }
        return (id, states, client.versionInfo.deviceId)
    }

    @Test func aLivePersonPassesThroughTheSDKAndTheBackendVerifiesTheResult() async throws {
        let t = try TestServer()
        let policy: [String: Any] = ["policy": ["motions": ["turnLeft", "turnRight"], "count": 1, "type": "motion", "maxAttempts": 1]]
        var outcome: (id: String, states: [VigilLivenessState], deviceId: String?)?
        for seed: UInt64 in [3, 4, 5] {   // live sessions have a measured BPCER (higher under load): others may try
            // At camera pace: the server's capture-clock check refuses a faster feed.
            outcome = try await run(t, policy, camera: SyntheticPerson(rig: try CapturePageTests.rig(), light: .live(strength: 0.15), seed: seed),
                                    seed: seed, paced: true)
            if case .success(let r)? = outcome?.states.last, r.outcome == "passed" { break }
            print("headless live session rejected, trying another: \(outcome?.states ?? [])")
        }
        let (id, states, deviceId) = try #require(outcome)
        #expect(states.count == 2 && states.first == .loading)
        guard case .success(let result)? = states.last else { Issue.record("\(states)"); return }
        #expect(result.outcome == "passed" && result.message == "Verification complete")
        let jwks = try #require(t.request("GET", "/.well-known/jwks.json").decode(JWKSet.self))
        let verified = try VigilVerifier.verifyResult(jws: result.signedResult, jwks: jwks, audience: t.tenantIds["a"]!, sessionId: id)
        #expect(verified.passed && verified.claims.scope == "device")
        // The device's copy leaves the device id out; the SDK's (the one in `ssid`) is the one
        // the server signed in the tenant's result.
        #expect(verified.claims.risk?.deviceId == nil)
        let full = try #require(t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["a"]).json["signedResult"] as? String)
        let tenants = try VigilVerifier.verifyResult(jws: full, jwks: jwks, audience: t.tenantIds["a"]!, sessionId: id)
        #expect(tenants.claims.risk?.deviceId == deviceId && deviceId != nil && tenants.claims.scope == nil)
    }

    /// A session that finds the server full waits for a place (its frames answered 503
    /// `server_busy`) and then passes: being kept waiting fails no one.
    @Test func aSessionKeptWaitingByABusyServerPassesOnceAdmitted() async throws {
        let t = try TestServer(frameCapacity: 10)
        let policy: [String: Any] = ["policy": ["motions": ["turnLeft"], "count": 1, "type": "motion", "maxAttempts": 1]]
        var passed = false
        for seed: UInt64 in [3, 4, 5] {   // live sessions have a measured BPCER (higher under load): others may try
            let occupant = try Occupant(t)
            let refusedBefore = Occupant.sessionsKeptWaiting(t)
            let freed = occupant.releaseOnceASessionWaits(t)
            let (_, states, _) = try await run(t, policy, camera: SyntheticPerson(rig: try CapturePageTests.rig(), light: .live(strength: 0.15), seed: seed),
                                               seed: seed, paced: true)
            freed.wait()
            #expect(Occupant.sessionsKeptWaiting(t) > refusedBefore, "the session was not kept waiting")
            if case .success(let result)? = states.last, result.outcome == "passed" {
                passed = true
                break
            }
            print("headless session kept waiting was rejected, trying another: \(states)")
        }
        #expect(passed)
    }

    /// A host that asks in its own UI declines the flashes through the device API client.
    @Test func theDeviceAPIClientDeclinesTheFlashesOnlyWhereThePolicyAllows() async throws {
        let t = try TestServer()
        let server = try #require(URL(string: "http://127.0.0.1:\(t.port)"))
        let allowed = t.createSession(["policy": ["count": 2, "type": "both", "motionOnlyFallback": true]])
        try await DeviceAPIClient(serverURL: server, token: allowed.token).declineReflection()
        #expect((t.request("GET", "/v1/sessions/\(allowed.id)", bearer: t.apiKeys["a"]).json["risk"] as? [String: Any])?["reflectionDeclined"] as? Bool == true)
        let strict = t.createSession(["riskLevel": "medium"])
        do {
            try await DeviceAPIClient(serverURL: server, token: strict.token).declineReflection()
            Issue.record("a policy without the fallback was declined")
        } catch let refusal as DeviceAPIClient.Refusal {
            #expect(refusal.status == 409 && refusal.code == "motion_only_not_allowed")
        }
    }

    /// A print moved in front of the camera at `low` (two motions, one attempt), as in the browser.
    @Test func aPhotoThroughTheSDKEndsInASignedFailure() async throws {
        let t = try TestServer()
        let photo = PhotoAttack(rig: try CapturePageTests.rig(), medium: .print, seed: 3)
        let (id, states, _) = try await run(t, ["policy": ["count": 2, "type": "motion", "maxAttempts": 1]], camera: photo, seed: 9)
        guard case .success(let result)? = states.last else { Issue.record("\(states)"); return }
        #expect(result.outcome == "failed" && !result.feedback.isEmpty)
        let jwks = try #require(t.request("GET", "/.well-known/jwks.json").decode(JWKSet.self))
        #expect(try !VigilVerifier.verifyResult(jws: result.signedResult, jwks: jwks, audience: t.tenantIds["a"]!, sessionId: id).passed)
    }
}
