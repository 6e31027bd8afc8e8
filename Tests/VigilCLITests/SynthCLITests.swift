import Foundation
import Testing

/// `vigil synth session` writes a session directory; `vigil liveness` decides it the same way.
@Suite(.serialized) struct SynthCLITests {
    func synthesize(_ species: String, seed: Int, risk: String = "free", extra: [String] = []) throws -> (dir: String, summary: [String: Any]) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-synth-\(species)-\(UUID().uuidString)").path
        let result = try CLITests.run(["synth", "session", "--photo", "\(CLITests.fixtures)/obama.jpg", "--species", species,
                                       "--risk", risk, "--seed", "\(seed)", "--out", dir] + extra)
        #expect(result.status == 0, "\(result.stderr)")
        let summary = result.json as? [String: Any] ?? [:]
        return (dir, summary)
    }

    @Test func aSynthesisedLiveSessionPassesVigilLiveness() throws {
        let (dir, summary) = try synthesize("live", seed: 3)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(summary["outcome"] as? String == "passed")
        let result = try CLITests.run(["liveness", dir])
        #expect(result.status == 0, "\(result.stderr)")
        let report = result.json as? [String: Any]
        #expect(report?["outcome"] as? String == "passed")
    }

    @Test func aSynthesisedPhotoAttackFailsVigilLiveness() throws {
        let (dir, summary) = try synthesize("photoTilted", seed: 4)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(summary["outcome"] as? String == "failed")
        let result = try CLITests.run(["liveness", dir])
        #expect(result.status == 1, "\(result.stderr)")
    }

    /// A photo never makes its motions, so its reflection sequence never starts: the directory
    /// still carries the planned sequence and replays to the same failure.
    @Test func aSessionThatFailedBeforeItsReflectionReplays() throws {
        let (dir, summary) = try synthesize("photoPrint", seed: 5, risk: "medium")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(summary["outcome"] as? String == "failed")
        let session = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir).appendingPathComponent("session.json"))) as? [String: Any]
        let reflection = session?["reflection"] as? [String: Any]
        #expect(reflection?["colors"] != nil && reflection?["startMs"] == nil, "\(reflection ?? [:])")
        let result = try CLITests.run(["liveness", dir])
        #expect(result.status == 1, "\(result.stderr)")
        #expect((result.json as? [String: Any])?["outcome"] as? String == "failed")
    }

    @Test func synthRefusesAnUnknownSpeciesAndAPhotoWithoutAFace() throws {
        let unknown = try CLITests.run(["synth", "session", "--photo", "\(CLITests.fixtures)/obama.jpg", "--species", "ghost", "--out", "/tmp/x"])
        #expect(unknown.status == 2 && unknown.stderr.contains("unknown species"))
        let noise = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-noface-\(UUID().uuidString).png")
        try Data("not an image".utf8).write(to: noise)
        defer { try? FileManager.default.removeItem(at: noise) }
        let bad = try CLITests.run(["synth", "session", "--photo", noise.path, "--out", "/tmp/x"])
        #expect(bad.status == 2 && bad.stderr.contains("bad_image"))
    }
}
