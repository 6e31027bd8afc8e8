import Foundation
import VigilCore
import VigilFace
import VigilLiveness

/// How frames reach the engine, beyond what the camera sees.
public enum StreamTamper: Sendable, Hashable {
    /// Frames as captured.
    case none
    /// Every `every`-th frame repeats the previous frame's bytes (a frozen or looped feed).
    case duplicate(every: Int)
    /// Every `every`-th frame is held back and sent after the next one (timestamps go backwards).
    case reorder(every: Int)
}

/// Camera and network parameters of a simulated capture.
public struct CaptureSettings: Sendable, Hashable {
    /// The camera: rate, size, light, JPEG quality, blur.
    public var camera = CameraConditions()
    /// Jitter of the camera's frame interval (deviation, fraction of the interval).
    public var intervalJitter = 0.08
    /// Sensor noise (deviation per channel, 0...255), before the light's own.
    public var noise = 2.0
    /// Time for a server answer to reach the screen (ms).
    public var latencyMs = 60...160
    /// The longest capture before giving up (ms).
    public var maxDurationMs = 60_000
    /// Tampering with the frame stream.
    public var tamper = StreamTamper.none

    /// The defaults above.
    public init() {}
}

/// One uploaded frame: the JPEG and its capture timestamp.
public struct RecordedFrame: Sendable {
    /// The JPEG bytes as uploaded.
    public let jpeg: [UInt8]
    /// Capture time (ms since capture start).
    public let timestampMs: Int
}

/// A capture run against the real engine, as the server would see it, and its verdict.
public struct SimulatedSession: Sendable {
    /// The policy in force.
    public let policy: LivenessPolicy
    /// The drawn plan.
    public let plan: ChallengePlan
    /// Frames in upload order.
    public let frames: [RecordedFrame]
    /// When the reflection sequence started, if it did.
    public let reflectionStartMs: Int?
    /// The engine's decision after the last frame.
    public let decision: LivenessDecision
    /// Wall time the engine spent, excluding face analysis, per frame (ms), and on the decision.
    public let engineMsPerFrame: Double, decisionMs: Double
    /// Mean brightness of the largest face over the frames that had one (0...1), if any did.
    public let meanFaceBrightness: Double?

    /// Writes `session.json` and the frames into `directory` (the format of `vigil liveness`).
    public func write(to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var list: [[String: Any]] = []
        for (i, frame) in frames.enumerated() {
            let name = String(format: "%06d.jpg", i + 1)
            try Data(frame.jpeg).write(to: directory.appendingPathComponent(name))
            list.append(["file": name, "timestampMs": frame.timestampMs])
        }
        let policyJSON = try JSONSerialization.jsonObject(with: VigilJSON.encoder().encode(policy))
        var object: [String: Any] = [
            "policy": policyJSON,
            "challenges": zip(plan.motions, plan.holdMs).enumerated().map { i, pair -> [String: Any] in
                var c: [String: Any] = ["kind": pair.0.rawValue, "holdMs": pair.1]
                if i < decision.challenges.count, let at = decision.challenges[i].promptedAtMs { c["promptedAtMs"] = at }
                return c
            },
            "frames": list,
        ]
        // The planned sequence even when it never started (a motion failed first): `vigil
        // liveness` replays the session against its plan.
        if let sequence = plan.reflection {
            var reflection: [String: Any] = ["colors": sequence.colors.map(\.description), "stepMs": sequence.stepMs]
            reflection["startMs"] = reflectionStartMs
            object["reflection"] = reflection
        }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: directory.appendingPathComponent("session.json"))
    }
}

/// Runs a synthetic camera against the liveness engine frame by frame, closing the loop the way the
/// capture page does: prompts and reflection colours appear on the "screen" after a network delay,
/// and whatever is in front of the camera may react to them.
public enum SessionSimulator {
    /// Simulates one capture until the engine has finished or `maxDurationMs` passes.
    public static func run(policy: LivenessPolicy, plan: ChallengePlan, camera: inout some SyntheticCamera,
                           analyzer: some FaceAnalyzing, settings: CaptureSettings = CaptureSettings(), seed: UInt64) -> SimulatedSession {
        var random = SynthRandom(seed: seed)
        // Upload times, from their own stream so that the rest of a seeded session stays as it was.
        var network = SynthRandom(seed: seed &+ 0x9E37_79B9)
        var capture = CaptureAttempt(engine: LivenessEngine(policy: policy, plan: plan), checksArrivals: true)
        var frames: [RecordedFrame] = []
        // When the page learns the sequence's schedule (the answer to the frame that finished
        // the motions reaches it), and the schedule itself.
        var reflectionKnownAt: Int?
        var promptShown: [Int: Int] = [:]
        var previousBytes: [UInt8]?
        var held: RecordedFrame?
        var observed: [(frame: LivenessFrame, descriptor: FaceDescriptor?, reflectionStart: Int?)] = []
        let displayLag = Int(random.uniform(0...100))
        var t = 0, index = 0
        func latency() -> Int {
            Int(random.uniform(Double(settings.latencyMs.lowerBound)...Double(settings.latencyMs.upperBound)))
        }

        func deliver(_ frame: RecordedFrame) {
            guard let image = try? Image(encoded: frame.jpeg) else { return }
            // It reaches the server one upload later, on a clock that started with the capture's.
            let upload = network.uniform(Double(settings.latencyMs.lowerBound)...Double(settings.latencyMs.upperBound))
            let arrival = Date(timeIntervalSince1970: (Double(frame.timestampMs) + upload) / 1000)
            let scheduled = capture.engine.reflectionStartMs
            _ = capture.process(image, captureMs: frame.timestampMs, arrival: arrival, contentHash: contentHash(frame.jpeg), with: analyzer)
            if scheduled == nil, capture.engine.reflectionStartMs != nil { reflectionKnownAt = frame.timestampMs + latency() }
            if let last = capture.lastObservation { observed.append((last.frame, last.descriptor, scheduled)) }
            frames.append(frame)
        }

        var pacer = UploadPacer()
        let cameraIntervalMs = 1000 / settings.camera.rate.perSecond
        while t <= settings.maxDurationMs, !capture.engine.finished {
            // The camera delivers a frame at t; the page uploads it or lets it go.
            defer { t += max(Int(cameraIntervalMs / 2), Int((cameraIntervalMs * (1 + random.gaussian(settings.intervalJitter))).rounded())) }
            guard pacer.admit(t) else { continue }
            var screen = ScreenState()
            for (i, challenge) in capture.engine.tracker.challenges.enumerated() where challenge.state == .active {
                guard let prompted = challenge.promptedAtMs else { continue }
                let shown = promptShown[i] ?? prompted + latency()
                promptShown[i] = shown
                if t >= shown { screen.prompt = (i, challenge.kind, shown) }
            }
            if let knownAt = reflectionKnownAt, t >= knownAt, let start = capture.engine.reflectionStartMs, let sequence = capture.engine.reflectionSequence {
                let step = (t - start - displayLag) / sequence.stepMs
                if t - start - displayLag >= 0, step < sequence.colors.count {
                    let c = sequence.colors[step]
                    screen.color = (Double(c.red) / 255, Double(c.green) / 255, Double(c.blue) / 255)
                }
            }
            var buffer = settings.camera.develop(camera.frame(at: t, screen: screen))
            buffer.addNoise(sigma: settings.noise + settings.camera.extraNoise, using: &random)
            var bytes = buffer.image().jpegData(quality: settings.camera.jpegQuality)
            index += 1
            switch settings.tamper {
            case .duplicate(let every) where index % every == 0:
                bytes = previousBytes ?? bytes
                deliver(RecordedFrame(jpeg: bytes, timestampMs: t))
            case .reorder(let every) where index % every == 0 && held == nil:
                held = RecordedFrame(jpeg: bytes, timestampMs: t)
            default:
                deliver(RecordedFrame(jpeg: bytes, timestampMs: t))
                if let pending = held {
                    deliver(pending)
                    held = nil
                }
            }
            previousBytes = bytes
        }
        let brightness = observed.compactMap { $0.frame.faces.first?.quality.brightness }
        let before = DispatchTime.now().uptimeNanoseconds
        // The server's decision: a simulated session has no reference, and no other session sent its frames.
        let decision = capture.decide(evidence: SessionEvidence(framesSeenElsewhere: 0))
        let decisionMs = Double(DispatchTime.now().uptimeNanoseconds - before) / 1e6
        // The engine alone: the same observations replayed into a fresh engine, timed.
        var replay = LivenessEngine(policy: policy, plan: plan)
        let replayStart = DispatchTime.now().uptimeNanoseconds
        for o in observed {
            if let start = o.reflectionStart, replay.reflectionStartMs == nil { replay.startReflection(atMs: start) }
            _ = replay.observe(o.frame, descriptor: o.descriptor)
        }
        let engineNs = DispatchTime.now().uptimeNanoseconds - replayStart
        return SimulatedSession(policy: policy, plan: plan, frames: frames, reflectionStartMs: capture.engine.reflectionStartMs, decision: decision,
                                engineMsPerFrame: observed.isEmpty ? 0 : Double(engineNs) / 1e6 / Double(observed.count),
                                decisionMs: decisionMs,
                                meanFaceBrightness: brightness.isEmpty ? nil : brightness.reduce(0, +) / Double(brightness.count))
    }
}
