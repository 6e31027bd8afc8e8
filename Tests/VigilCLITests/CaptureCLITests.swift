import Foundation
import Testing

/// `vigil capture` against a running `vigil serve`: one JSON line per state, exit codes.
@Suite(.serialized) struct CaptureCLITests {
    static func lines(_ run: CLITests.Run) -> [[String: Any]] {
        String(decoding: run.stdout, as: UTF8.self).split(separator: "\n")
            .compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }

    @Test func aRecordedPhotoSessionIsCapturedAndFailsWithASignedResultExitOne() throws {
        let data = ServeCLITests.temporaryData()
        let served = try ServeCLITests.Served(data: data)
        defer { _ = served.stop(SIGTERM) }
        let key = try #require((served.started["demoTenant"] as? [String: Any])?["apiKey"] as? String)
        let (status, session) = ServeCLITests.http("POST", served.base + "/v1/sessions", bearer: key, json: ["riskLevel": "free"])
        #expect(status == 201)
        let id = try #require(session["sessionId"] as? String), token = try #require(session["sessionToken"] as? String)
        // A recording made for another plan: a still, tilted photo.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-capture-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let synth = try CLITests.run(["synth", "session", "--photo", "\(CLITests.fixtures)/obama.jpg", "--species", "photoTilted",
                                      "--risk", "free", "--seed", "5", "--out", dir])
        #expect(synth.status == 0, "\(synth.stderr)")
        let run = try CLITests.run(["capture", "--server", served.base, "--session-id", id, "--token", token, "--frames", dir])
        let states = Self.lines(run)
        #expect(run.status == 1, "\(run.stderr) \(states)")
        #expect(states.first?["state"] as? String == "loading" && states.count == 2)
        #expect(states.last?["state"] as? String == "success" && states.last?["outcome"] as? String == "failed")
        #expect((states.last?["signedResult"] as? String)?.split(separator: ".").count == 3)
    }

    @Test func badArgumentsAndABadTokenExitTwo() throws {
        #expect(try CLITests.run(["capture", "--server", "http://127.0.0.1:9"]).status == 2)
        #expect(try CLITests.run(["capture", "--server", "http://127.0.0.1:9", "--session-id", "s", "--token", "t",
                                  "--frames", "/nonexistent", "--y4m", "/x"]).status == 2)
        #expect(try CLITests.run(["capture", "--server", "http://127.0.0.1:9", "--session-id", "s", "--token", "t", "--frames", "/nonexistent"]).status == 2)
        let notVideo = try CLITests.temporaryFile(Data("hello".utf8), suffix: ".y4m")
        #expect(try CLITests.run(["capture", "--server", "http://127.0.0.1:9", "--session-id", "s", "--token", "t", "--y4m", notVideo]).status == 2)
    }
}
