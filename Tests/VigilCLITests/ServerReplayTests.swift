import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import VigilCore
import VigilFace
import VigilServer
import VigilStore
import VigilSynth

/// A session captured by a real server, recorded as the server saw it (frames, capture and
/// arrival times, the drawn plan, frames seen elsewhere), then replayed through `vigil liveness`:
/// the replay reaches the signed result's outcome, feedback and checks, because the server, the
/// evaluation and the CLI run one frame loop and one decision.
@Suite(.serialized) struct ServerReplayTests {
    static let models = try! FaceModels()

    /// The recording and the signed result of one server session.
    struct Recorded {
        let directory: URL
        let signed: VerdictPayload
        /// How long the server held each reflection colour, if it showed them.
        let reflectionStepMs: Int?
    }

    /// Runs a synthetic person against a fresh server and records the session into a directory
    /// in the format of docs/session-format.md. `follows` says whether the person does what the
    /// page asks; a frame reaches the server every `intervalMs`.
    static func record(policy: [String: Any], follows: Bool, seed: UInt64, intervalMs: Int = 100) throws -> Recorded {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-replay-\(UUID().uuidString)")
        let store = try VigilServer.openStore(data)
        let (_, apiKey) = try Administration.createTenant(name: "replay", in: store)
        var configuration = ServerConfiguration(dataDirectory: data)
        configuration.port = 0
        // Admission with a capacity of its own: measured, it follows how fast this machine
        // analyses a frame, and a slow or busy one sheds frames the recording still holds.
        configuration.frameCapacity = 1000
        let clock = CameraClock()
        let server = try VigilServer(configuration: configuration, store: store, analyzers: try AnalyzerPool(models: models, size: configuration.threads),
                                     clock: clock)
        defer { server.shutdown() }
        let client = Client(port: server.port)

        let created = try client.send("POST", "/v1/sessions", bearer: apiKey, body: try JSONSerialization.data(withJSONObject: ["policy": policy]))
        let id = try #require(created["sessionId"] as? String), token = try #require(created["sessionToken"] as? String)
        // The plan the server drew, as its stored engine state holds it before the first frame.
        let tenantId = try #require(try store.tenants().first).id
        let state = try #require(try store.session(id: id, tenantId: tenantId)?.engineState)
        let plan = try #require(((try JSONSerialization.jsonObject(with: Data(state)) as? [String: Any])?["runner"] as? [String: Any])
            .flatMap { ($0["session"] as? [String: Any])?["plan"] as? [String: Any] })

        let rig = try FaceRig(photo: try Image(contentsOf: URL(fileURLWithPath: "\(CLITests.fixtures)/grace_hopper.jpg")), name: "grace",
                              analyzer: try FaceAnalyzer(models: models))
        var person = SyntheticPerson(rig: rig, light: .live(strength: 0.15), seed: seed)
        var random = SynthRandom(seed: seed &+ 6)
        var screen = ScreenState()
        var reflection: (colors: [String], startMs: Int, stepMs: Int)?
        let directory = data.appendingPathComponent("recording")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var frames: [[String: Any]] = []
        var last: [String: Any] = [:]
        // A frame every `intervalMs` of a clock the test moves on and the server reads, each reaching it
        // 40 ms after it was taken: the session runs at a camera's pace however slowly a loaded
        // machine answers (in real time, answers 350 ms apart gave the engine under 3 frames a
        // second and failed a cooperating person).
        for ms in stride(from: 0, to: 30_000, by: intervalMs) {
            clock.set(ms: ms + 40)
            if let r = reflection, ms >= r.startMs, (ms - r.startMs) / r.stepMs < r.colors.count {
                let hex = Array(r.colors[(ms - r.startMs) / r.stepMs].utf8.dropFirst())
                let channel = { (i: Int) in Double(Int(String(decoding: hex[i..<i + 2], as: UTF8.self), radix: 16) ?? 255) / 255 }
                screen.color = (channel(0), channel(2), channel(4))
            } else {
                screen.color = (1, 1, 1)
            }
            var pixels = person.frame(at: ms, screen: screen)
            pixels.addNoise(sigma: 2, using: &random)
            let jpeg = pixels.image().jpegData(quality: 85)
            let name = String(format: "%06d.jpg", frames.count)
            try Data(jpeg).write(to: directory.appendingPathComponent(name))
            frames.append(["file": name, "timestampMs": ms, "arrivalMs": clock.now.timeIntervalSince1970 * 1000])
            last = try client.send("POST", "/v1/client/frames", bearer: token, body: Data(jpeg),
                                   headers: ["Content-Type": "image/jpeg", "Vigil-Capture-Time": String(ms)])
            if last["status"] as? String == "completed" { break }
            if follows, let challenge = last["challenge"] as? [String: Any], let index = challenge["index"] as? Int,
               let kind = (challenge["kind"] as? String).flatMap(Motion.init(rawValue:)) {
                if screen.prompt?.index != index { screen.prompt = (index, kind, ms + 100) }
            } else {
                screen.prompt = nil
            }
            if reflection == nil, let r = last["reflection"] as? [String: Any], let colors = r["colors"] as? [String],
               let start = r["startMs"] as? Int, let step = r["stepMs"] as? Int {
                reflection = (colors, start, step)
            }
        }
        let compact = try #require(last["signedResult"] as? String)
        let signed = try JSONDecoder().decode(VerdictPayload.self, from: Data(try CompactJWS(parsing: compact).payload))
        let motions = plan["motions"] as? [String] ?? [], holds = plan["holdMs"] as? [Int] ?? []
        var session: [String: Any] = [
            "policy": policy, "frames": frames, "framesSeenElsewhere": try store.framesSeenElsewhere(sessionId: id),
            "challenges": zip(motions, holds).map { ["kind": $0, "holdMs": $1] },
        ]
        if let r = plan["reflection"] as? [String: Any] { session["reflection"] = r }
        try JSONSerialization.data(withJSONObject: session).write(to: directory.appendingPathComponent("session.json"))
        return Recorded(directory: directory, signed: signed, reflectionStepMs: reflection?.stepMs)
    }

    /// The signed outcome is `expected`, and the replay's report agrees with the signed result:
    /// the same outcome, feedback and checks. A session that does not is kept for tracing.
    static func expectSameDecision(_ recorded: Recorded, signed expected: String) throws {
        var differences: [String] = []
        defer {
            if differences.isEmpty {
                try? FileManager.default.removeItem(at: recorded.directory.deletingLastPathComponent())
            } else {
                Issue.record("\(differences.joined(separator: "; ")); the recording is kept in \(recorded.directory.path)")
            }
        }
        let signed = recorded.signed
        if signed.outcome != expected {
            differences.append("signed \(signed.outcome), not \(expected): \(signed.checks.filter { !$0.value.passed }.map { "\($0.key):\($0.value.reason ?? "")" }.sorted())")
        }
        let replay = try CLITests.run(["liveness", recorded.directory.path])
        guard let report = replay.json as? [String: Any], let checks = report["checks"] as? [String: [String: Any]] else {
            differences.append("no report: \(replay.stderr)")
            return
        }
        if report["outcome"] as? String != signed.outcome { differences.append("replayed \(report["outcome"] ?? "nil")") }
        if report["feedback"] as? [String] != signed.feedback.map(\.rawValue) { differences.append("feedback \(report["feedback"] ?? "nil")") }
        if Set(checks.keys) != Set(signed.checks.keys) { differences.append("checks \(checks.keys.sorted())") }
        for (name, check) in signed.checks {
            let replayed = checks[name]
            // Descriptor arithmetic is not bit-exact across BLAS thread counts: scores to 3 decimals.
            if replayed?["passed"] as? Bool != check.passed || replayed?["reason"] as? String != check.reason
                || abs((replayed?["score"] as? Double ?? -1) - check.score) >= 1e-3 {
                differences.append("\(name): replayed \(replayed ?? [:]), signed \(check)")
            }
        }
    }

    static var policy: [String: Any] {
        ["motions": ["turnLeft", "turnRight"], "count": 1, "type": "both", "maxAttempts": 1, "challengeTimeout": 6]
    }

    @Test func aPassedServerSessionReplaysToTheSameDecision() throws {
        let recorded = try Self.record(policy: Self.policy, follows: true, seed: 3)
        #expect(recorded.signed.checks["reflection"] != nil && recorded.signed.checks["captureClock"] != nil)
        try Self.expectSameDecision(recorded, signed: "passed")
    }

    /// Frames reaching the server every 350 ms (under 3 a second: a server answering slowly):
    /// the reflection colours are held 800 ms, the person passes, and the replay, which sets the
    /// step from the frames as the server did, decides the same.
    @Test func aSlowSessionHoldsTheColoursLongerAndReplaysToTheSameDecision() throws {
        let recorded = try Self.record(policy: Self.policy, follows: true, seed: 3, intervalMs: 350)
        #expect(recorded.reflectionStepMs == 800)
        try Self.expectSameDecision(recorded, signed: "passed")
    }

    @Test func aFailedServerSessionReplaysToTheSameDecision() throws {
        let recorded = try Self.record(policy: Self.policy, follows: false, seed: 5)
        try Self.expectSameDecision(recorded, signed: "failed")
    }

    /// The server's clock, set by the test: a fixed start plus the milliseconds it was set to.
    final class CameraClock: ServerClock {
        private let start = Date()
        private let ms = Mutex(0)
        var now: Date { start.addingTimeInterval(Double(ms.withLock { $0 }) / 1000) }
        func set(ms value: Int) { ms.withLock { $0 = value } }
    }

    /// A blocking JSON client.
    struct Client {
        let port: UInt16

        func send(_ method: String, _ path: String, bearer: String, body: Data, headers: [String: String] = ["Content-Type": "application/json"]) throws -> [String: Any] {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
            request.httpMethod = method
            request.httpBody = body
            request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization")
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            let done = DispatchSemaphore(value: 0)
            let box = Box()
            URLSession.shared.dataTask(with: request) { data, _, _ in
                box.data = data
                done.signal()
            }.resume()
            done.wait()
            return try #require((try? JSONSerialization.jsonObject(with: box.data ?? Data())) as? [String: Any])
        }

        final class Box: @unchecked Sendable { var data: Data? }
    }
}
