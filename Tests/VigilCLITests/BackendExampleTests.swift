import Foundation
import Testing

/// `Examples/backend`, a package of its own that depends on the `VigilVerifier` product by path:
/// it builds, and its three steps work against a running `vigil serve`.
@Suite(.serialized) struct BackendExampleTests {
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/backend")

    /// Builds the example (a no-op after `scripts/test` built it) and returns its executable.
    static func built() throws -> URL {
        let build = try CLITests.run(["build", "--package-path", package.path], executable: try CLITests.swift())
        #expect(build.status == 0, "\(String(decoding: build.stdout, as: UTF8.self)) \(build.stderr)")
        return package.appendingPathComponent(".build/debug/vigil-backend-example")
    }

    @Test func theExampleBackendCreatesASessionAndTrustsOnlyItsOwnSignedResult() throws {
        let example = try Self.built()
        let data = ServeCLITests.temporaryData()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let served = try ServeCLITests.Served(data: data, extra: ["--demo"])
        defer { _ = served.stop(SIGTERM) }
        let demo = try #require(served.started["demoTenant"] as? [String: Any])
        let key = try #require(demo["apiKey"] as? String), tenant = try #require(demo["tenantId"] as? String)

        let created = try CLITests.run(["create", "--server", served.base, "--api-key", key, "--risk-level", "low"], executable: example)
        #expect(created.status == 0, "\(created.stderr)")
        let session = try #require(created.json as? [String: Any])
        let id = try #require(session["sessionId"] as? String), token = try #require(session["sessionToken"] as? String)
        // No frames: finishing decides the attempt at once, a signed failure.
        let (status, finished) = ServeCLITests.http("POST", served.base + "/v1/client/finish", bearer: token)
        #expect(status == 200)
        let signed = try #require(finished["signedResult"] as? String)

        func verify(_ jws: String, tenant: String = tenant, session: String = id) throws -> CLITests.Run {
            try CLITests.run(["verify", "--server", served.base, "--tenant-id", tenant, "--session-id", session], executable: example,
                             input: Data(jws.utf8))
        }
        let good = try verify(signed)
        #expect(good.status == 0, "\(good.stderr)")
        let claims = try #require(good.json as? [String: Any])
        #expect(claims["verified"] as? Bool == true && claims["passed"] as? Bool == false && claims["outcome"] as? String == "failed")
        #expect(claims["sessionId"] as? String == id)

        var tampered = Array(signed)
        let last = tampered.count - 2
        tampered[last] = tampered[last] == "A" ? "B" : "A"
        for refused in [try verify(String(tampered)), try verify(signed, tenant: "tn_other"), try verify(signed, session: "ses_other"),
                        try verify("not.a.jws")] {
            #expect(refused.status == 1 && (refused.json as? [String: Any])?["verified"] as? Bool == false,
                    "\(String(decoding: refused.stdout, as: UTF8.self))")
        }
        #expect(try CLITests.run(["verify", "--server", served.base], executable: example, input: Data()).status == 2)
        #expect(try CLITests.run([], executable: example).status == 2)
    }

    /// The signature is made by Python's `hmac`, not by Vigil's code.
    @Test func theExampleBackendAcceptsAWebhookSignedWithTheSecretOnly() throws {
        let example = try Self.built()
        let body = #"{"id":"evt_1","type":"session.completed","createdAt":"2026-12-03T07:00:00Z","sessionId":"ses_1","status":"completed"}"#
        let now = Int(Date().timeIntervalSince1970)
        func mac(_ timestamp: Int) throws -> String {
            let python = try CLITests.run(["-c", "import hmac, hashlib, sys; print(hmac.new(b'whsec_test', sys.argv[1].encode() + b'.' + sys.stdin.buffer.read(), hashlib.sha256).hexdigest())",
                                           String(timestamp)], executable: URL(fileURLWithPath: "/usr/bin/python3"), input: Data(body.utf8))
            #expect(python.status == 0, "\(python.stderr)")
            return String(decoding: python.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func deliver(_ body: String, signature: String, secret: String = "whsec_test") throws -> CLITests.Run {
            try CLITests.run(["webhook", "--secret", secret, "--signature", signature], executable: example, input: Data(body.utf8))
        }
        let signature = "t=\(now),v1=\(try mac(now))"
        let accepted = try deliver(body, signature: signature)
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect((accepted.json as? [String: Any])?["type"] as? String == "session.completed")
        #expect(try deliver(body, signature: signature, secret: "whsec_other").status == 1)
        #expect(try deliver(body.replacingOccurrences(of: "ses_1", with: "ses_2"), signature: signature).status == 1)
        #expect(try deliver(body, signature: "t=\(now - 3600),v1=\(try mac(now - 3600))").status == 1)   // replayed late
        #expect(try deliver(body, signature: "garbage").status == 1)
    }
}
