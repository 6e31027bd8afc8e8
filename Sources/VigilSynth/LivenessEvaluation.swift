import Foundation
import Synchronization
import VigilCore
import VigilFace
import VigilLiveness

/// Runs many synthetic sessions per species and risk level through the engine and tallies how
/// often attacks were accepted (APCER) and live sessions rejected (BPCER).
public struct LivenessEvaluation: Sendable {
    /// One session's outcome.
    public struct Trial: Sendable {
        /// What was in front of the camera.
        public let species: Species
        /// The risk level.
        public let level: RiskLevel
        /// The camera it was seen through.
        public let camera: CameraConditions
        /// The subject's name.
        public let subject: String
        /// Whether the engine passed it.
        public let passed: Bool
        /// Capture time until the decision (ms).
        public let durationMs: Int
        /// Engine time per frame (ms, without face analysis) and for the decision.
        public let engineMsPerFrame: Double, decisionMs: Double
        /// Mean brightness of the face over the session (0...1), if one was seen.
        public let faceBrightness: Double?
        /// The failed checks and challenge reasons, for reports.
        public let reasons: [String]
    }

    /// All trials.
    public let trials: [Trial]

    /// Runs `perSpecies` sessions of every attack and `live` live sessions at each level under
    /// each camera condition, on `workers` threads, each with its own analyzer. Wrong outcomes (a
    /// live session rejected, an attack accepted) are written as session directories under
    /// `keepFailures` when given.
    public static func run(library: SubjectLibrary, models: FaceModels, levels: [RiskLevel], species: [Species] = Species.allCases,
                           cameras: [CameraConditions] = [CameraConditions()], perSpecies: Int, live: Int, workers: Int, seed: UInt64,
                           keepFailures: URL? = nil, progress: @Sendable (Int, Int) -> Void = { _, _ in }) throws -> LivenessEvaluation {
        var jobs: [(Species, RiskLevel, CameraConditions, Int)] = []
        for camera in cameras {
            for level in levels {
                for kind in species {
                    for i in 0..<(kind == .live ? live : perSpecies) { jobs.append((kind, level, camera, i)) }
                }
            }
        }
        let analyzers = try (0..<max(1, workers)).map { _ in try FaceAnalyzer(models: models) }
        let next = Mutex(0)
        let results = Mutex([Trial?](repeating: nil, count: jobs.count))
        let work = jobs
        DispatchQueue.concurrentPerform(iterations: analyzers.count) { worker in
            let analyzer = analyzers[worker]
            while true {
                let index = next.withLock { value -> Int in
                    defer { value += 1 }
                    return value
                }
                guard index < work.count else { return }
                let (species, level, camera, i) = work[index]
                let (subject, other) = library.pick(i)
                let policy = LivenessPolicy.preset(level)
                let sessionSeed = seed &+ UInt64(index) &* 0x9E37_79B9
                let session = species.simulate(rig: subject.rig, other: other.rig, policy: policy, analyzer: analyzer, camera: camera, seed: sessionSeed)
                let decision = session.decision
                let reasons = decision.reasons
                let trial = Trial(species: species, level: level, camera: camera, subject: subject.name, passed: decision.outcome == .passed,
                                  durationMs: session.frames.map(\.timestampMs).max() ?? 0, engineMsPerFrame: session.engineMsPerFrame,
                                  decisionMs: session.decisionMs, faceBrightness: session.meanFaceBrightness, reasons: reasons)
                if let keepFailures, trial.passed != (species == .live) {
                    let directory = keepFailures.appendingPathComponent("\(level.rawValue)-\(species.rawValue)-\(index)", isDirectory: true)
                    try? session.write(to: directory)
                    try? Data("\(subject.name) seed \(sessionSeed), \(camera): \(reasons.joined(separator: ", "))\n".utf8)
                        .write(to: directory.appendingPathComponent("trial.txt"))
                }
                let done = results.withLock { r -> Int in
                    r[index] = trial
                    return r.count { $0 != nil }
                }
                progress(done, work.count)
            }
        }
        return LivenessEvaluation(trials: results.withLock { $0.compactMap { $0 } })
    }

    /// The report: per level, a row per species, then the engine's cost.
    public func table() -> String {
        var out = ""
        let levels = RiskLevel.allCases.filter { level in trials.contains { $0.level == level } }
        func pct(_ a: Int, _ b: Int) -> String { b == 0 ? "-" : String(format: "%.1f%%", 100 * Double(a) / Double(b)) }
        for level in levels {
            out += "\n== risk level \(level.rawValue)\n"
            out += "species             attempts  accepted  APCER    top rejection reasons\n"
            for species in Species.allCases where species.isAttack {
                let rows = trials.filter { $0.level == level && $0.species == species }
                guard !rows.isEmpty else { continue }
                let accepted = rows.count { $0.passed }
                out += Self.pad(species.rawValue, 19) + String(format: " %8d  %8d  ", rows.count, accepted)
                    + Self.pad(pct(accepted, rows.count), 7) + "  " + Self.topReasons(rows) + "\n"
            }
            let live = trials.filter { $0.level == level && $0.species == .live }
            if !live.isEmpty {
                let rejected = live.count { !$0.passed }
                let passedTimes = live.filter(\.passed).map(\.durationMs)
                let meanPass = passedTimes.isEmpty ? 0 : Double(passedTimes.reduce(0, +)) / Double(passedTimes.count) / 1000
                out += String(format: "live sessions       %8d  rejected %d  BPCER ", live.count, rejected) + pct(rejected, live.count)
                    + String(format: "  mean time to pass %.1f s  ", meanPass) + Self.topReasons(live.filter { !$0.passed }) + "\n"
            }
        }
        out += matrixTable()
        let perFrame = trials.map(\.engineMsPerFrame).sorted()
        let decisions = trials.map(\.decisionMs).sorted()
        if !perFrame.isEmpty {
            out += String(format: "\nengine per frame (without face analysis): median %.4f ms, p95 %.4f ms; decision after the last frame: median %.3f ms, max %.3f ms\n",
                          perFrame[perFrame.count / 2], perFrame[perFrame.count * 95 / 100], decisions[decisions.count / 2], decisions.last!)
        }
        return out
    }

    /// BPCER and the worst species' APCER for each camera condition and level, the whole matrix
    /// last, and the live sessions rejected for frame timing (which the page must never cause).
    func matrixTable() -> String {
        var cameras: [CameraConditions] = []
        for trial in trials where !cameras.contains(trial.camera) { cameras.append(trial.camera) }
        guard cameras.count > 1 else { return "" }
        let levels = RiskLevel.allCases.filter { level in trials.contains { $0.level == level } }
        func cell(_ rows: [Trial]) -> String {
            let live = rows.filter { $0.species == .live }
            let bpcer = live.isEmpty ? "-" : String(format: "%.1f%%", 100 * Double(live.count { !$0.passed }) / Double(live.count))
            let apcers = Species.allCases.filter(\.isAttack).compactMap { species -> Double? in
                let attacks = rows.filter { $0.species == species && !Self.passesByDesign(species, at: $0.level) }
                return attacks.isEmpty ? nil : Double(attacks.count { $0.passed }) / Double(attacks.count)
            }
            let apcer = apcers.isEmpty ? "-" : String(format: "%.1f%%", 100 * apcers.max()!)
            return Self.pad(bpcer + " / " + apcer, 17)
        }
        var out = "\n== camera conditions: BPCER / worst species' APCER, and the live face's mean brightness\n" + Self.pad("camera", 36)
            + levels.map { Self.pad($0.rawValue, 17) }.joined() + "face\n"
        for camera in cameras {
            let faces = trials.filter { $0.camera == camera && $0.species == .live }.compactMap(\.faceBrightness)
            out += Self.pad(camera.description, 36) + levels.map { level in cell(trials.filter { $0.camera == camera && $0.level == level }) }.joined()
                + (faces.isEmpty ? "-" : String(format: "%.2f", faces.reduce(0, +) / Double(faces.count))) + "\n"
        }
        out += Self.pad("whole matrix", 36) + levels.map { level in cell(trials.filter { $0.level == level }) }.joined() + "\n"
        if levels.contains(where: { Self.passesByDesign(.reflectionIgnored, at: $0) }) {
            out += "(APCER leaves out reflectionIgnored at levels without a reflection step, which it passes by design)\n"
        }
        let timing = trials.count { $0.species == .live && !$0.passed
            && $0.reasons.contains { $0.hasSuffix("duplicate_frames") || $0.hasSuffix("implausible_frame_intervals") } }
        out += "live sessions rejected for duplicate_frames or implausible_frame_intervals: \(timing)\n"
        return out
    }

    /// Whether `species` is an attack the level's checks are not meant to stop: a face lit by
    /// the wrong light, where the level flashes none.
    static func passesByDesign(_ species: Species, at level: RiskLevel) -> Bool {
        species == .reflectionIgnored && !LivenessPolicy.preset(level).type.includesReflection
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    private static func topReasons(_ rows: [Trial]) -> String {
        var counts: [String: Int] = [:]
        for row in rows where !row.passed { for r in Set(row.reasons) { counts[r, default: 0] += 1 } }
        return counts.sorted { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }.prefix(3)
            .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
}
