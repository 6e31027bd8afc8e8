import Foundation
import VigilCore
import VigilFace
import VigilLiveness

/// `vigil-bench FRAMES_DIR OUT_JSON`: times each face-engine stage on the 640x480 JPEG frames in
/// FRAMES_DIR (single thread) and writes timings and per-frame descriptors as JSON.
/// `vigil-bench --make-frames PHOTO... --out DIR` writes such frames from portrait photos.
@main
struct VigilBench {
    struct Report: Encodable {
        let stages: [StageTimings]
        let modelLoadMs: Double
        let modelsMB: Double
        let perWorkerMB: Double
        let frames: [String: FrameResult]
    }

    /// One frame's descriptor and the integer box its landmarks were predicted in (dlib corners,
    /// rounded as FaceAnalyzer rounds them), so the peer can align on exactly the same region.
    struct FrameResult: Encodable {
        let descriptor: [Float]
        let rect: [Int]
    }

    static func main() throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "--make-frames" {
            try makeFrames(Array(arguments.dropFirst()))
            return
        }
        guard arguments.count == 2 else {
            FileHandle.standardError.write(Data("usage: vigil-bench FRAMES_DIR OUT_JSON | --make-frames PHOTO... --out DIR\n".utf8))
            exit(2)
        }
        let directory = URL(fileURLWithPath: arguments[0])
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".jpg") }.sorted()
        let encoded = try files.map { try Data(contentsOf: directory.appendingPathComponent($0)) }

        let before = residentBytes()
        var loadMs: [Double] = []
        let models = try timed(&loadMs) { try FaceModels() }
        let modelsBytes = residentBytes() - before
        let workersBefore = residentBytes()
        let extra = try (0..<4).map { _ in try FaceAnalyzer(models: models) }
        let perWorker = (residentBytes() - workersBefore) / extra.count
        let analyzer = extra[0]

        var decode: [Double] = [], detect: [Double] = [], track: [Double] = [], descriptor: [Double] = [], pattern: [Double] = []
        var descriptors: [String: FrameResult] = [:]
        var observed: [FaceObservation] = []
        for round in 0..<5 {
            for (name, data) in zip(files, encoded) {
                let image = try timed(&decode) { try Image(encoded: data) }
                guard let face = timed(&detect, { analyzer.detect(in: image) }).first else { continue }
                observed.append(face)
                // The next frame of a session: the same face a few pixels away, followed by tracking.
                let next = image.remapped(width: image.width, height: image.height) { x, y in
                    Point2D(x: Double(x) - 6, y: Double(y) - 3)
                }
                _ = timed(&track) { analyzer.track(in: next, previous: face) }
                _ = timed(&pattern) { ScreenPatternMeter.periodicity(in: image, box: face.box) }
                let values = try timed(&descriptor) { try analyzer.descriptor(for: face, in: image) }
                if round == 0 {
                    let b = face.box
                    descriptors[name] = FrameResult(descriptor: values.values, rect: [
                        Int(b.x.rounded()), Int(b.y.rounded()), Int((b.x + b.width).rounded()) - 1, Int((b.y + b.height).rounded()) - 1])
                }
            }
        }
        // The liveness engine on top of face analysis: a high-risk session fed these observations.
        var engine: [Double] = [], decision: [Double] = []
        let policy = try LivenessPolicy.preset(.high).validated()
        var generator = PlanGenerator.random()
        for _ in 0..<20 {
            var liveness = LivenessEngine(policy: policy, plan: ChallengePlanner.plan(for: policy, using: &generator))
            liveness.startReflection(atMs: 500)
            for (i, face) in observed.enumerated() {
                let frame = LivenessFrame(timestampMs: i * 100, faces: [face], contentHash: UInt64(i))
                _ = timed(&engine) { liveness.observe(frame) }
            }
            _ = timed(&decision) { liveness.decide() }
        }
        let report = Report(
            stages: [StageTimings("decode 640x480 JPEG", decode), StageTimings("frame with detection", detect),
                     StageTimings("tracked frame", track), StageTimings("descriptor", descriptor),
                     StageTimings("screen-pattern spectrum (every 3rd frame)", pattern),
                     StageTimings("liveness engine per frame", engine), StageTimings("liveness decision", decision)],
            modelLoadMs: loadMs[0], modelsMB: Double(modelsBytes) / 1_048_576, perWorkerMB: Double(perWorker) / 1_048_576,
            frames: descriptors)
        try VigilJSON.encoder(pretty: true).encode(report).write(to: URL(fileURLWithPath: arguments[1]))
    }

    /// Camera-like 640x480 frames: each portrait cropped around its face at a few offsets.
    static func makeFrames(_ arguments: [String]) throws {
        guard let outIndex = arguments.firstIndex(of: "--out"), outIndex + 1 < arguments.count else {
            throw CocoaError(.fileWriteUnknown)
        }
        let out = URL(fileURLWithPath: arguments[outIndex + 1])
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let analyzer = try FaceAnalyzer(models: try FaceModels(), options: .photos)
        for (p, path) in arguments[..<outIndex].enumerated() {
            let photo = try Image(contentsOf: URL(fileURLWithPath: path))
            guard let face = analyzer.detect(in: photo).first?.box else { continue }
            for (v, offset) in [(0.0, 0.0), (-0.15, 0.0), (0.15, 0.05), (0.0, -0.08), (0.1, 0.1)].enumerated() {
                let height = face.height / (0.42 + 0.03 * Double(v)), width = height * 4 / 3
                let x0 = face.midX - width / 2 + offset.0 * width, y0 = face.midY - height / 2 + offset.1 * height
                let frame = photo.remapped(width: 640, height: 480) { x, y in
                    Point2D(x: x0 + Double(x) * width / 640, y: y0 + Double(y) * height / 480)
                }
                try Data(frame.jpegData(quality: 90)).write(to: out.appendingPathComponent(String(format: "%02d-%d.jpg", p, v)))
            }
        }
    }
}
