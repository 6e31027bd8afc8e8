import Foundation
import VigilCore
import VigilFace
import VigilLiveness

/// `vigil liveness SESSION_DIR`: the liveness engine on a recorded session (docs/session-format.md).
/// Exit 0 passed, 1 failed, 2 bad input.
enum LivenessCommand {
    static let usage = "vigil liveness [--trace] SESSION_DIR"

    struct SessionFile: Decodable {
        struct Challenge: Decodable {
            let kind: Motion
            let promptedAtMs: Int?
            let holdMs: Int?
        }
        struct Reflection: Decodable {
            let colors: [ReflectionColor]
            /// When the recording's sequence started: informational, the loop schedules it as the server does.
            let startMs: Int?
            let stepMs: Int
        }
        struct Frame: Decodable {
            let file: String
            let timestampMs: Int
            /// When the server received it (ms on any clock), when the recording knows.
            let arrivalMs: Double?
        }
        let policy: LivenessPolicy?
        let riskLevel: RiskLevel?
        let challenges: [Challenge]
        let reflection: Reflection?
        let frames: [Frame]
        /// How many of the frames the server had also received in other sessions, when recorded.
        let framesSeenElsewhere: Int?
    }

    struct Report: Encodable {
        struct Challenge: Encodable {
            let kind: Motion
            let state: ChallengeState
            let promptedAtMs: Int?
            let atMs: Int?
            let reason: String?
        }
        let outcome: LivenessDecision.Outcome
        let score: Double
        let feedback: [FeedbackCode]
        let checks: [String: CheckResult]
        let challenges: [Challenge]
        let bestFrame: String?
    }

    static let maxFrames = 3000

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, valued: [], switches: ["trace"])
        guard args.positionals.count == 1 else { throw CLIError.usage("usage: \(usage)") }
        let directory = URL(fileURLWithPath: args.positionals[0], isDirectory: true)
        let file = try load(directory)
        let policy = try resolvePolicy(file)
        guard file.challenges.count == (policy.type.includesMotion ? policy.count : 0) else {
            throw CLIError(code: "bad_session", message: "the policy asks for \(policy.count) motion challenges, the session lists \(file.challenges.count)")
        }
        guard (1...maxFrames).contains(file.frames.count) else {
            throw CLIError(code: "bad_session", message: "a session has 1...\(maxFrames) frames, this one \(file.frames.count)")
        }
        guard policy.type.includesReflection == (file.reflection != nil) else {
            throw CLIError(code: "bad_session", message: policy.type.includesReflection ? "the policy asks for the reflection sequence, the session has none"
                                                                                      : "the session has a reflection sequence its policy does not ask for")
        }
        let limits = ReflectionSequence.limits
        if let r = file.reflection, !limits.stepMs.contains(r.stepMs) || !limits.colors.contains(r.colors.count) {
            throw CLIError(code: "bad_session", message: "reflection needs \(limits.colors) colours and stepMs in \(limits.stepMs)")
        }
        let reflection = file.reflection.map { ReflectionSequence(colors: $0.colors, stepMs: $0.stepMs) }
        let plan = ChallengePlan(motions: file.challenges.map(\.kind),
                                 holdMs: file.challenges.map { $0.holdMs ?? ChallengePlanner.holdRangeMs.lowerBound },
                                 reflection: reflection)
        let analyzer = try FaceAnalyzer(models: try FaceModels())
        // Arrival times, when every frame has one, decide `captureClock` as the server does.
        var capture = CaptureAttempt(engine: LivenessEngine(policy: policy, plan: plan),
                                     checksArrivals: file.frames.allSatisfy { $0.arrivalMs != nil })
        var firstDescriptor: FaceDescriptor?
        for frame in file.frames {
            guard !frame.file.contains("/"), !frame.file.hasPrefix(".") else {
                throw CLIError(code: "bad_session", message: "frame file '\(frame.file)' must be a plain name inside the session directory")
            }
            let url = directory.appendingPathComponent(frame.file)
            guard let bytes = try? Data(contentsOf: url) else {
                throw CLIError(code: "bad_session", message: "frame \(frame.file) cannot be read")
            }
            let image: Image
            do {
                image = try Image(encoded: bytes)
            } catch {
                throw CLIError(code: "bad_image", message: "frame \(frame.file): \(error.description)")
            }
            let update = capture.process(image, captureMs: frame.timestampMs, arrival: frame.arrivalMs.map { Date(timeIntervalSince1970: $0 / 1000) },
                                         contentHash: contentHash(bytes), with: analyzer)
            if args.has("trace") {
                let descriptor = capture.lastObservation?.descriptor
                if firstDescriptor == nil { firstDescriptor = descriptor }
                trace(frame.timestampMs, capture.lastObservation?.frame, update, identity: descriptor.flatMap { d in firstDescriptor.map { d.distance(to: $0) } })
            }
        }
        let decision = capture.decide(evidence: SessionEvidence(framesSeenElsewhere: file.framesSeenElsewhere))
        let best = capture.engine.bestFrame.flatMap { best in file.frames.first { $0.timestampMs == best.timestampMs }?.file }
        try printJSON(Report(outcome: decision.outcome, score: decision.score, feedback: decision.feedback, checks: decision.checks,
                             challenges: decision.challenges.map {
                                 Report.Challenge(kind: $0.kind, state: $0.state, promptedAtMs: $0.promptedAtMs, atMs: $0.endedAtMs, reason: $0.reason)
                             }, bestFrame: best))
        return decision.outcome == .passed ? 0 : 1
    }

    /// One line per frame on standard error: what the tracker saw and did, for tuning.
    static func trace(_ timestampMs: Int, _ frame: LivenessFrame?, _ update: TrackerUpdate, identity: Double?) {
        var line = "\(timestampMs)ms"
        if let face = frame?.faces.first {
            line += String(format: " yaw %.1f pitch %.1f roll %.1f eyes %.3f/%.3f mouth %.3f", face.pose.yaw, face.pose.pitch, face.pose.roll,
                           face.eyes.left, face.eyes.right, face.mouth)
            if let detail = face.eyeDetail { line += String(format: " detail %.2f/%.2f", detail.left, detail.right) }
            line += String(format: " sharpness %.0f", face.quality.sharpness)
            line += " \(face.source.rawValue)"
            if face.isDoubtful { line += " doubtful" }
        } else {
            line += " no face"
        }
        line += " guidance \(update.guidance?.rawValue ?? "-") challenge \(update.challengeIndex.map(String.init) ?? "-")"
        line += String(format: " progress %.2f", update.progress)
        if let identity { line += String(format: " identity distance %.3f", identity) }
        line += "\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    static func load(_ directory: URL) throws -> SessionFile {
        let url = directory.appendingPathComponent("session.json")
        guard let data = try? Data(contentsOf: url) else {
            throw CLIError(code: "bad_session", message: "\(url.path) cannot be read")
        }
        do {
            return try JSONDecoder().decode(SessionFile.self, from: data)
        } catch {
            throw CLIError(code: "bad_session", message: "session.json: \(error)")
        }
    }

    static func resolvePolicy(_ file: SessionFile) throws -> LivenessPolicy {
        let policy: LivenessPolicy
        switch (file.policy, file.riskLevel) {
        case (let explicit?, nil): policy = explicit
        case (nil, let level?): policy = .preset(level)
        default: throw CLIError(code: "bad_session", message: "session.json needs exactly one of 'policy' and 'riskLevel'")
        }
        do {
            return try policy.validated()
        } catch {
            throw CLIError(code: "invalid_policy", message: error.description)
        }
    }
}
