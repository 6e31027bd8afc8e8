import Foundation
import Synchronization
import VigilCore
import VigilFace
import VigilLiveness

/// How real people pass (`vigil synth real`, `scripts/eval-liveness --real`): each annotated
/// motion of each clip answers a one-motion prompt as a live camera, at 5, 10 and 15 frames a
/// second with the camera's phase drawn at random, through the same frame loop and decision as
/// the server (`SessionSimulator`, `CaptureAttempt`). Every session is of a real person, so
/// every rejection counts towards BPCER.
public struct RealFaceEvaluation: Sendable {
    /// One session.
    public struct Trial: Sendable {
        public let clip: String
        public let motion: Motion
        public let fps: Int
        public let passed: Bool
        /// Why the decision failed (`check:reason`), empty when it passed.
        public let reasons: [String]
        /// The largest descriptor distance the identity check saw, when it took two samples.
        public let identityDistance: Double?
        /// Whether the clip shows another deliberate motion at the same time (a turn, a nod, a
        /// chin-up or an open mouth of another kind, annotated overlapping this one).
        public let withAnother: Bool
        /// Whether the annotator doubted the motion (`ClipAnnotation.Event.doubtful`).
        public let doubtful: Bool
    }

    /// Every session run.
    public let trials: [Trial]
    /// Annotated motions this close (s) count as made together.
    static let overlapSeconds = 0.2

    /// Runs each event of `annotations` whose motion the engine asks for, in the clip of the same
    /// name in `clips`, `repeats` times at each of `rates`, on `workers` threads. Rejected sessions
    /// are written to `keepFailures` when given, with a `trial.txt` of their reasons (`vigil liveness
    /// --trace` replays them).
    public static func run(clips: [RecordedClip], annotations: [ClipAnnotation], rates: [Int], repeats: Int, models: FaceModels,
                           workers: Int, seed: UInt64, keepFailures: URL? = nil) throws -> RealFaceEvaluation {
        var jobs: [(clip: RecordedClip, event: ClipAnnotation.Event, rest: ClipAnnotation.Interval, fps: Int, together: Bool)] = []
        for annotation in annotations {
            let name = (annotation.clip as NSString).deletingPathExtension
            guard let clip = clips.first(where: { $0.name == name }) else { continue }
            for event in annotation.events where event.kind != nil {
                // The face rests on the longest neutral stretch before the motion, else the longest.
                let before = annotation.neutral.filter { $0.end <= event.start }
                guard let rest = (before.isEmpty ? annotation.neutral : before).max(by: { $0.end - $0.start < $1.end - $1.start }) else { continue }
                let together = annotation.events.contains { other in
                    other.motion != event.motion && other.motion != Motion.blink.rawValue
                        && other.start <= event.end + Self.overlapSeconds && other.end >= event.start - Self.overlapSeconds
                }
                for fps in rates { for _ in 0..<repeats { jobs.append((clip, event, rest, fps, together)) } }
            }
        }
        let analyzers = try (0..<max(1, workers)).map { _ in try FaceAnalyzer(models: models) }
        let next = Mutex(0)
        let results = Mutex([Trial?](repeating: nil, count: jobs.count))
        let work = jobs
        DispatchQueue.concurrentPerform(iterations: analyzers.count) { worker in
            while true {
                let index = next.withLock { value -> Int in
                    defer { value += 1 }
                    return value
                }
                guard index < work.count else { return }
                let (clip, event, rest, fps, together) = work[index]
                let (trial, session) = Self.trial(clip: clip, event: event, rest: rest, fps: fps, withAnother: together, analyzer: analyzers[worker],
                                                  seed: seed &+ UInt64(index) &* 0x9E37_79B9)
                if let keepFailures, !trial.passed {
                    let name = "\(clip.name)-\(trial.motion.rawValue)-\(String(format: "%.1f", event.start))s-\(fps)fps-\(index)"
                    let directory = keepFailures.appendingPathComponent(name, isDirectory: true)
                    try? session.write(to: directory)
                    try? Data("\(trial.reasons.joined(separator: ", "))\n".utf8).write(to: directory.appendingPathComponent("trial.txt"))
                }
                results.withLock { $0[index] = trial }
            }
        }
        return RealFaceEvaluation(trials: results.withLock { $0.compactMap { $0 } })
    }

    /// One session: `event` of `clip` answering a one-motion prompt at `fps`.
    static func trial(clip: RecordedClip, event: ClipAnnotation.Event, rest: ClipAnnotation.Interval, fps: Int, withAnother: Bool,
                      analyzer: some FaceAnalyzing, seed: UInt64) -> (Trial, SimulatedSession) {
        var random = SynthRandom(seed: seed)
        let motion = event.kind!
        let policy = LivenessPolicy(motions: [motion], count: 1, type: .motion, maxAttempts: 1)
        var planSeed = [UInt8](repeating: 0, count: 32)
        for i in 0..<32 { planSeed[i] = UInt8(truncatingIfNeeded: random.next()) }
        var generator = PlanGenerator(seed: planSeed)
        let plan = ChallengePlanner.plan(for: policy, using: &generator)
        var settings = CaptureSettings()
        settings.camera.rate = FrameRate(frames: fps)
        if let first = try? clip.frames[0].withUnsafeBytes({ bytes throws(ImageError) in try ImageHeader(parsing: bytes) }) {
            settings.camera.width = first.width
            settings.camera.height = first.height
        }
        settings.maxDurationMs = Int(policy.challengeTimeout * 1000) + 20_000
        var camera = RecordedClipCamera(clip: clip, event: event, rest: rest, reactionMs: Int(random.uniform(300...800)))
        let session = SessionSimulator.run(policy: policy, plan: plan, camera: &camera, analyzer: analyzer, settings: settings, seed: random.next())
        let identity = session.decision.checks["identity"].flatMap { $0.reason == nil || $0.reason == "identity_changed" ? $0 : nil }
        let distance = identity.map { IdentityCheck().largestDistance(score: $0.score) }
        return (Trial(clip: clip.name, motion: motion, fps: fps, passed: session.decision.outcome == .passed, reasons: session.decision.reasons,
                      identityDistance: distance, withAnother: withAnother, doubtful: event.doubtful == true), session)
    }

    /// BPCER per motion and frame rate, then the checks that rejected.
    public func table() -> String {
        func pct(_ rows: [Trial]) -> String {
            let rejected = rows.count { !$0.passed }
            return rows.isEmpty ? "-" : String(format: "%5.1f%% (%d/%d)", 100 * Double(rejected) / Double(rows.count), rejected, rows.count)
        }
        let rates = Set(trials.map(\.fps)).sorted()
        /// One line: `label`, then BPCER of `rows` at each rate and over all.
        func row(_ label: String, _ rows: [Trial]) -> String {
            label.padding(toLength: 13, withPad: " ", startingAt: 0)
                + rates.map { fps in pct(rows.filter { $0.fps == fps }).padding(toLength: 18, withPad: " ", startingAt: 0) }.joined() + pct(rows)
        }
        var out = "motion       " + rates.map { "\($0) fps".padding(toLength: 18, withPad: " ", startingAt: 0) }.joined() + "all\n"
        for motion in Motion.allCases {
            let rows = trials.filter { $0.motion == motion }
            guard !rows.isEmpty else { continue }
            out += row(motion.rawValue, rows) + "\n"
        }
        out += row("all", trials) + "\n"
        out += row("alone", trials.filter { !$0.withAnother }) + "   (motions made without another deliberate one at the same time)\n"
        out += row("clear", trials.filter { !$0.doubtful }) + "   (motions the annotator did not doubt)\n"
        let clearAlone = trials.filter { !$0.doubtful && !$0.withAnother }
        out += row("clear alone", clearAlone) + "\n"
        for motion in Motion.allCases {
            let rows = clearAlone.filter { $0.motion == motion }
            guard !rows.isEmpty else { continue }
            out += row("  " + motion.rawValue, rows) + "\n"
        }
        var reasons: [String: Int] = [:]
        for trial in trials { for reason in trial.reasons { reasons[reason, default: 0] += 1 } }
        out += "rejected by: " + reasons.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + "\n"
        var byCheck: [String: Int] = [:]
        for trial in trials {
            let checks = Set(trial.reasons.map { reason -> String in
                let name = String(reason.prefix { $0 != ":" })
                return Motion(rawValue: name) == nil ? name : "challenges"
            })
            for check in checks { byCheck[check, default: 0] += 1 }
        }
        out += "BPCER by check: " + byCheck.sorted { $0.value > $1.value }
            .map { String(format: "%@ %.1f%%", $0.key, 100 * Double($0.value) / Double(max(1, trials.count))) }.joined(separator: ", ") + "\n"
        let distances = trials.compactMap(\.identityDistance).sorted()
        if !distances.isEmpty {
            out += String(format: "identity distance (limit %.2f): median %.2f, 95th percentile %.2f, largest %.2f over %d sessions\n",
                          IdentityCheck().maxDistance, distances[distances.count / 2], distances[distances.count * 95 / 100], distances.last!,
                          distances.count)
        }
        var clips: [String: (Int, Int)] = [:]
        for trial in trials { clips[trial.clip, default: (0, 0)].1 += 1; if !trial.passed { clips[trial.clip, default: (0, 0)].0 += 1 } }
        out += "by clip: " + clips.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.0)/\($0.value.1)" }.joined(separator: ", ") + "\n"
        return out
    }
}
