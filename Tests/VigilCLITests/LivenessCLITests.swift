import Foundation
import Testing
import VigilCore
import VigilFace

/// `vigil liveness` on session directories written by the test.
@Suite struct LivenessCLITests {
    /// Writes `session.json` and camera-like frames of a still portrait, nudged a pixel a frame so
    /// no two frames are identical: a photo held in front of the camera.
    static func stillPhotoSession(policy: String, frames: Int = 70) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-session-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let photo = try Image(contentsOf: URL(fileURLWithPath: "\(CLITests.fixtures)/obama.jpg"))
        // The fixture's face box (vigil analyze): x 366, y 136, 259 px; frame it at ~45% height.
        var entries: [String] = []
        for i in 0..<frames {
            let height = 259 / 0.45, width = height * 4 / 3
            let x0 = 480 - width / 2 + Double(i) * 0.4, y0 = 265.5 - height / 2
            let frame = photo.remapped(width: 640, height: 480) { x, y in
                Point2D(x: x0 + Double(x) * width / 640, y: y0 + Double(y) * height / 480)
            }
            let name = String(format: "%06d.jpg", i)
            try Data(frame.jpegData(quality: 85)).write(to: dir.appendingPathComponent(name))
            entries.append(#"{"file": "\#(name)", "timestampMs": \#(i * 100)}"#)
        }
        let json = #"{\#(policy), "frames": [\#(entries.joined(separator: ","))]}"#
        try Data(json.utf8).write(to: dir.appendingPathComponent("session.json"))
        return dir
    }

    @Test func aStillPhotoFailsWithAChallengeTimeout() throws {
        let dir = try Self.stillPhotoSession(policy: #""policy": {"count": 1, "motions": ["turnLeft"], "challengeTimeout": 5}, "challenges": [{"kind": "turnLeft"}]"#)
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLITests.run(["liveness", dir.path])
        #expect(result.status == 1, "\(result.stderr)")
        let report = try #require(result.json as? [String: Any])
        #expect(report["outcome"] as? String == "failed")
        #expect((report["feedback"] as? [String])?.contains("challengeTimeout") == true)
        let challenge = try #require((report["challenges"] as? [[String: Any]])?.first)
        #expect(challenge["kind"] as? String == "turnLeft" && challenge["state"] as? String == "timedOut")
        #expect(challenge["promptedAtMs"] is Int)
        let checks = try #require(report["checks"] as? [String: [String: Any]])
        #expect(checks["singleFace"]?["passed"] as? Bool == true)
        #expect(checks["frameTiming"]?["passed"] as? Bool == true)
        #expect((report["bestFrame"] as? String)?.hasSuffix(".jpg") == true)
    }

    @Test func badSessionsExitTwoWithAClearError() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-empty-\(UUID())")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let missing = try CLITests.run(["liveness", empty.path])
        #expect(missing.status == 2 && missing.errorCode == "bad_session")

        let badPolicy = try Self.stillPhotoSession(policy: #""policy": {"count": 1, "challengeTimeout": 2}, "challenges": [{"kind": "blink"}]"#, frames: 2)
        defer { try? FileManager.default.removeItem(at: badPolicy) }
        let invalid = try CLITests.run(["liveness", badPolicy.path])
        #expect(invalid.status == 2 && invalid.errorCode == "invalid_policy" && invalid.stderr.contains("challengeTimeout"))

        // The policy asks for the flashes; the file has none (the engine would otherwise pass it without them).
        let noReflection = try Self.stillPhotoSession(policy: #""policy": {"count": 1, "type": "both"}, "challenges": [{"kind": "blink"}]"#, frames: 2)
        defer { try? FileManager.default.removeItem(at: noReflection) }
        let unplanned = try CLITests.run(["liveness", noReflection.path])
        #expect(unplanned.status == 2 && unplanned.errorCode == "bad_session" && unplanned.stderr.contains("reflection"))

        let escaping = try Self.stillPhotoSession(policy: #""riskLevel": "free", "challenges": [{"kind": "blink"}]"#, frames: 2)
        defer { try? FileManager.default.removeItem(at: escaping) }
        let json = try String(contentsOf: escaping.appendingPathComponent("session.json"), encoding: .utf8)
            .replacingOccurrences(of: "000001.jpg", with: "../../etc/passwd")
        try Data(json.utf8).write(to: escaping.appendingPathComponent("session.json"))
        let traversal = try CLITests.run(["liveness", escaping.path])
        #expect(traversal.status == 2 && traversal.errorCode == "bad_session")

        try Data([0xFF, 0xD8, 0xFF, 0xE0]).write(to: escaping.appendingPathComponent("000000.jpg"))
        let corrupt = try CLITests.run(["liveness", escaping.path])
        #expect(corrupt.status == 2 && corrupt.errorCode == "bad_image")
    }
}
