import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// `vigil serve` as an operator runs it: start-up output, SIGTERM, and a SIGKILL that loses nothing.
@Suite(.serialized) struct ServeCLITests {
    /// A running `vigil serve` and what it printed on start.
    final class Served {
        let process = Process()
        let started: [String: Any]
        var base: String { started["listening"] as? String ?? "" }

        init(data: String, extra: [String] = []) throws {
            process.executableURL = CLITests.binary
            process.arguments = ["serve", "--port", "0", "--data", data] + extra
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            var line = Data()
            while !line.contains(UInt8(ascii: "\n")) {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                line.append(chunk)
            }
            started = (try? JSONSerialization.jsonObject(with: line)) as? [String: Any] ?? [:]
        }

        /// Sends `sig` and waits up to 20 s (then kills it, so a hang fails the test instead of CI).
        func stop(_ sig: Int32) -> Int32 {
            kill(process.processIdentifier, sig)
            let deadline = Date().addingTimeInterval(20)
            while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                return -1
            }
            return process.terminationStatus
        }

        deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    }

    /// The payload of a compact JWS, as JSON.
    static func payload(_ compact: String) throws -> [String: Any] {
        let parts = compact.split(separator: ".")
        var base64 = parts.count == 3 ? String(parts[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") : ""
        while base64.count % 4 != 0 { base64 += "=" }
        return try #require(try Data(base64Encoded: base64).flatMap { try JSONSerialization.jsonObject(with: $0) as? [String: Any] })
    }

    static func http(_ method: String, _ url: String, bearer: String? = nil, json: [String: Any]? = nil) -> (Int, [String: Any]) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        request.httpBody = json.map { try! JSONSerialization.data(withJSONObject: $0) }
        let done = DispatchSemaphore(value: 0)
        final class Box: @unchecked Sendable { var value: (Int, [String: Any]) = (0, [:]) }
        let box = Box()
        URLSession.shared.dataTask(with: request) { data, response, _ in
            box.value = ((response as? HTTPURLResponse)?.statusCode ?? 0,
                         data.flatMap { (try? JSONSerialization.jsonObject(with: $0)) as? [String: Any] } ?? [:])
            done.signal()
        }.resume()
        done.wait()
        return box.value
    }

    static func temporaryData() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("vigil-serve-\(UUID().uuidString)").path
    }

    @Test func onlyTheDemoMakesATenantOnAFreshDataDirectoryAndSIGTERMExitsCleanly() throws {
        let data = Self.temporaryData()
        defer { try? FileManager.default.removeItem(atPath: data) }
        // A production start prints no key: a key on stdout ends up in terminals and logs.
        let production = try Served(data: data)
        #expect(production.started["demoTenant"] == nil && !production.base.isEmpty)
        #expect(production.stop(SIGTERM) == 0)
        #expect(try (CLITests.run(["tenants", "list", "--data", data]).json as? [Any])?.isEmpty == true)
        let served = try Served(data: data, extra: ["--demo"])
        let demo = try #require(served.started["demoTenant"] as? [String: Any])
        let key = try #require(demo["apiKey"] as? String)
        #expect(key.hasPrefix("vk_live_"))
        #expect(served.started["demoUrl"] as? String == served.base + "/demo")
        #expect(Self.http("POST", served.base + "/v1/sessions", bearer: key, json: ["riskLevel": "low"]).0 == 201)
        #expect(served.stop(SIGTERM) == 0)
        // A second start on the same directory makes no new tenant.
        let again = try Served(data: data)
        #expect(again.started["demoTenant"] == nil && !again.base.isEmpty)
        #expect(again.started["demoUrl"] == nil)   // no --demo, no page
        #expect(again.stop(SIGTERM) == 0)
    }

    @Test func aKilledServerLosesNoResultAndNoQueuedWebhook() throws {
        let data = Self.temporaryData()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let served = try Served(data: data, extra: ["--allow-private-webhooks", "--demo"])
        let key = try #require((served.started["demoTenant"] as? [String: Any])?["apiKey"] as? String)
        // A webhook endpoint that is down: the event stays queued.
        #expect(Self.http("PUT", served.base + "/v1/webhooks", bearer: key, json: ["url": "http://127.0.0.1:9/hook"]).0 == 200)
        let (_, created) = Self.http("POST", served.base + "/v1/sessions", bearer: key, json: ["riskLevel": "low"])
        let id = try #require(created["sessionId"] as? String), token = try #require(created["sessionToken"] as? String)
        let (status, finished) = Self.http("POST", served.base + "/v1/client/finish", bearer: token)
        #expect(status == 200 && finished["status"] as? String == "completed")
        let signed = try #require(finished["signedResult"] as? String)
        #expect(served.stop(SIGKILL) != 0)

        let restarted = try Served(data: data, extra: ["--allow-private-webhooks", "--demo"])
        let (readStatus, read) = Self.http("GET", restarted.base + "/v1/sessions/\(id)", bearer: key)
        // The result the device got survives the kill: its copy for the device is the stored result's.
        let stored = try #require(read["result"] as? [String: Any]), copy = try Self.payload(signed)
        #expect(readStatus == 200 && read["status"] as? String == "completed" && copy["jti"] as? String == stored["jti"] as? String)
        #expect(restarted.stop(SIGTERM) == 0)
        let deliveries = try CLITests.run(["webhooks", "deliveries", "--data", data])
        let rows = try #require(deliveries.json as? [[String: Any]])
        #expect(rows.count == 1 && rows.first?["event"] as? String == "session.completed" && rows.first?["state"] as? String == "pending")
        #expect((rows.first?["attempts"] as? Int ?? 0) >= 1)
    }

    @Test func operatorCommandsWorkOnADataDirectory() throws {
        let data = Self.temporaryData()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let created = try CLITests.run(["tenants", "create", "acme", "--data", data])
        #expect(created.status == 0)
        let tenant = try #require(created.json as? [String: Any])
        #expect((tenant["apiKey"] as? String)?.hasPrefix("vk_live_") == true)
        let listed = try CLITests.run(["tenants", "list", "--data", data])
        #expect((listed.json as? [[String: Any]])?.first?["name"] as? String == "acme")
        // Dates an operator reads are RFC 3339.
        #expect(((listed.json as? [[String: Any]])?.first?["createdAt"] as? String)?.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$"#, options: .regularExpression) != nil)
        let rotated = try CLITests.run(["signing-keys", "rotate", "--data", data])
        #expect(rotated.status == 0 && (rotated.json as? [String: Any])?["activeKid"] is String)
        let active = try #require((rotated.json as? [String: Any])?["activeKid"] as? String)
        // `keys revoke` names API keys now, and points a signing key's kid to `signing-keys`.
        let misdirected = try CLITests.run(["keys", "revoke", active, "--data", data])
        #expect(misdirected.status == 1 && misdirected.stderr.contains("signing-keys revoke"))
        let revoked = try CLITests.run(["signing-keys", "revoke", active, "--data", data])
        let replacement = (revoked.json as? [String: Any])?["activeKid"] as? String
        #expect(revoked.status == 0 && replacement != nil && replacement != active)
        #expect(try CLITests.run(["signing-keys", "revoke", "k_missing", "--data", data]).status == 1)
        #expect(try CLITests.run(["keys", "revoke", "--data", data]).status == 2)
        #expect(try CLITests.run(["keys", "rotate", "--data", data]).status == 0)   // as before `signing-keys`

        // API keys: a second for a rotation, no third, only prefixes listed, revoked ones refused.
        let tenantId = try #require(tenant["tenantId"] as? String), first = try #require(tenant["apiKey"] as? String)
        let second = try #require(CLITests.run(["keys", "create", "--tenant", tenantId, "--data", data]).json as? [String: Any])
        #expect((second["apiKey"] as? String)?.hasPrefix("vk_live_") == true && second["keyId"] is String)
        #expect(try CLITests.run(["keys", "create", "--tenant", tenantId, "--data", data]).status == 1)
        let keys = try #require(CLITests.run(["keys", "list", "--tenant", tenantId, "--data", data]).json as? [[String: Any]])
        #expect(keys.count == 2 && keys.allSatisfy { $0["apiKey"] == nil && ($0["prefix"] as? String)?.count == 12 })
        #expect(keys.first?["prefix"] as? String == String(first.prefix(12)))
        let firstId = try #require(keys.first?["keyId"] as? String)
        let gone = try CLITests.run(["keys", "revoke", firstId, "--data", data])
        #expect(gone.status == 0 && (gone.json as? [String: Any])?["revokedAt"] is String)
        #expect(try CLITests.run(["keys", "revoke", firstId, "--data", data]).status == 1)
        #expect(try CLITests.run(["keys", "list", "--tenant", "tn_missing", "--data", data]).status == 1)
        // Deleting a tenant erases it and everything of it.
        #expect(try CLITests.run(["tenants", "delete", tenantId, "--data", data]).status == 0)
        #expect(try (CLITests.run(["tenants", "list", "--data", data]).json as? [Any])?.isEmpty == true)
        #expect(try CLITests.run(["tenants", "delete", tenantId, "--data", data]).status == 1)
        #expect(try CLITests.run(["sessions", "show", "ses_missing", "--data", data]).status == 1)
        #expect(try CLITests.run(["tenants", "create", "--data", data]).status == 2)
        #expect(try CLITests.run(["serve", "--port", "99999"]).status == 2)
        #expect(try CLITests.run(["serve", "--log-level", "verbose"]).status == 2)
        // Every serve option also comes from the environment.
        let fromEnvironment = try CLITests.run(["serve"], environment: ["VIGIL_LOG_LEVEL": "verbose"])
        #expect(fromEnvironment.status == 2 && fromEnvironment.stderr.contains("'verbose'"))
    }

    @Test func everyCommandAnswersHelpWithItsUsage() throws {
        for command in ["analyze", "compare", "liveness", "synth", "serve", "tenants", "keys", "signing-keys", "sessions", "webhooks", "capture"] {
            let help = try CLITests.run([command, "--help"])
            #expect(help.status == 0 && String(decoding: help.stdout, as: UTF8.self).hasPrefix("usage:"), "\(command)")
        }
    }
}
