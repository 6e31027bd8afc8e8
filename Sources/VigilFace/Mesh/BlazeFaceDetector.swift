import Foundation
import VigilCore

/// MediaPipe's short-range face detector (BlazeFace, `face_detector.tflite` of the face
/// landmarker's bundle, Apache-2.0) run by LiteRT on the CPU: faces within about two metres of a
/// camera, each with its eyes, as the face landmarker finds them before its mesh.
///
/// Not Sendable: it holds a compiled model that serves one call at a time (one per analyzer).
public final class BlazeFaceDetector {
    /// The detector model, from MediaPipe's `face_landmarker.task` bundle (scripts/setup).
    public static let modelFile = "face_detector.tflite"

    /// One face found.
    public struct Detection: Sendable, Equatable {
        /// The face's box (brows to chin, cheek to cheek) in image pixels.
        public var box: Rect
        /// The model's probability that this is a face.
        public var score: Double
        /// Centre of the subject's right eye (the image's left on an unmirrored frontal face).
        public var rightEye: Point2D
        /// Centre of the subject's left eye.
        public var leftEye: Point2D

        /// The region the face mesh is read in: the box with MediaPipe's margin, along the eyes.
        public var meshRegion: FaceRegion { FaceRegion(box: box, rightEye: rightEye, leftEye: leftEye) }
    }

    /// Detections below this probability are dropped (MediaPipe's own threshold).
    public static let minScore = 0.5

    private let network: LiteRTModel
    private let inputSide: Int
    private let anchors: [SIMD2<Double>]
    private let boxesOutput: Int
    private let scoresOutput: Int

    /// Loads the detector from `directory` (default: `FaceModels.defaultDirectory`).
    public init(directory: URL = FaceModels.defaultDirectory) throws(ModelError) {
        network = try LiteRTModel(modelFile: Self.modelFile, in: directory)
        // One 128x128 RGB image in; for each of its 896 anchors 16 values (box centre and size,
        // then six key points: eyes, nose, mouth, ears) and a score logit out.
        let anchors = Self.anchors(side: 128)
        guard network.inputShape == [1, 128, 128, 3],
              let boxes = network.outputShapes.firstIndex(of: [1, anchors.count, 16]),
              let scores = network.outputShapes.firstIndex(of: [1, anchors.count, 1]) else {
            throw .invalidFile(name: Self.modelFile, reason: "not the short-range face detector")
        }
        inputSide = 128
        self.anchors = anchors
        boxesOutput = boxes
        scoresOutput = scores
    }

    /// The faces in `area` of `image` (the whole image when nil), most probable first.
    public func detect(in image: Image, area: Rect? = nil, minScore: Double = BlazeFaceDetector.minScore) throws(ModelError) -> [Detection] {
        let area = area.flatMap { $0.intersection(image.bounds) } ?? image.bounds
        guard area.width >= 1, area.height >= 1 else { return [] }
        // Letterboxed: the area's longer side fills the input, centred, the rest black.
        let scale = max(area.width, area.height) / Double(inputSide)
        let origin = Point2D(x: area.midX - scale * Double(inputSide) / 2, y: area.midY - scale * Double(inputSide) / 2)
        let outputs = try network.run(input(image, area: area, origin: origin, scale: scale))
        let raw = outputs[boxesOutput], logits = outputs[scoresOutput]
        let side = Double(inputSide)
        func imagePoint(_ u: Double, _ v: Double) -> Point2D { Point2D(x: origin.x + u * side * scale, y: origin.y + v * side * scale) }
        var found: [(detection: Detection, values: [Double])] = []
        for (i, anchor) in anchors.enumerated() {
            let logit = Double(min(max(logits[i], -100), 100))
            let score = 1 / (1 + exp(-logit))
            guard score >= minScore else { continue }
            // Offsets in input pixels from the anchor's centre (the anchors have unit size).
            let v = (0..<16).map { Double(raw[16 * i + $0]) / side }
            let values = [anchor.x + v[0], anchor.y + v[1], v[2], v[3], anchor.x + v[4], anchor.y + v[5], anchor.x + v[6], anchor.y + v[7]]
            guard values.allSatisfy(\.isFinite) else { continue }
            found.append((Self.detection(values, score: score, imagePoint), values))
        }
        return Self.blended(found, imagePoint)
    }

    /// A detection from its values in input units: box centre, size, right eye, left eye.
    private static func detection(_ v: [Double], score: Double, _ imagePoint: (Double, Double) -> Point2D) -> Detection {
        let topLeft = imagePoint(v[0] - v[2] / 2, v[1] - v[3] / 2), bottomRight = imagePoint(v[0] + v[2] / 2, v[1] + v[3] / 2)
        return Detection(box: Rect(x: topLeft.x, y: topLeft.y, width: bottomRight.x - topLeft.x, height: bottomRight.y - topLeft.y),
                         score: score, rightEye: imagePoint(v[4], v[5]), leftEye: imagePoint(v[6], v[7]))
    }

    /// Weighted non-maximum suppression, as MediaPipe blends BlazeFace's anchors: each group of
    /// detections overlapping the most probable one left (intersection over union above 0.3)
    /// becomes one, its values averaged by score, with the group's highest score.
    private static func blended(_ found: [(detection: Detection, values: [Double])],
                                _ imagePoint: (Double, Double) -> Point2D) -> [Detection] {
        var remaining = found.sorted { $0.detection.score > $1.detection.score }
        var result: [Detection] = []
        while let best = remaining.first {
            let group = remaining.filter { $0.detection.box.overlap(with: best.detection.box) > 0.3 }
            remaining.removeAll { $0.detection.box.overlap(with: best.detection.box) > 0.3 }
            let total = group.reduce(0) { $0 + $1.detection.score }
            var values = [Double](repeating: 0, count: best.values.count)
            for member in group {
                for k in values.indices { values[k] += member.values[k] * member.detection.score / total }
            }
            result.append(detection(values, score: best.detection.score, imagePoint))
        }
        return result
    }

    /// The anchors' centres in input units: MediaPipe's short-range layout, two anchors at each
    /// cell of a 16x16 grid (stride 8), then six at each cell of an 8x8 grid (three layers of
    /// stride 16 merged), row by row.
    static func anchors(side: Int) -> [SIMD2<Double>] {
        var anchors: [SIMD2<Double>] = []
        for (stride, perCell) in [(8, 2), (16, 6)] {
            let cells = side / stride
            for y in 0..<cells {
                for x in 0..<cells {
                    let centre = SIMD2((Double(x) + 0.5) / Double(cells), (Double(y) + 0.5) / Double(cells))
                    anchors += Array(repeating: centre, count: perCell)
                }
            }
        }
        return anchors
    }

    /// The input tensor: each input pixel the mean of the image pixels under it (a few samples a
    /// side when it covers many), RGB scaled to -1...1; outside the area, black.
    private func input(_ image: Image, area: Rect, origin: Point2D, scale: Double) -> [Float] {
        let n = inputSide, w = image.width
        let samples = max(1, min(4, Int(scale.rounded(.up))))
        let step = scale / Double(samples)
        var out = [Float](repeating: -1, count: n * n * 3)
        let minX = area.x, maxX = area.x + area.width, minY = area.y, maxY = area.y + area.height
        image.rgb.withUnsafeBufferPointer { rgb in
            out.withUnsafeMutableBufferPointer { out in
                for v in 0..<n {
                    let top = origin.y + Double(v) * scale
                    guard top + scale > minY, top < maxY else { continue }
                    for u in 0..<n {
                        let left = origin.x + Double(u) * scale
                        guard left + scale > minX, left < maxX else { continue }
                        var sum = SIMD3<Double>(), count = 0.0
                        for sy in 0..<samples {
                            let y = top + (Double(sy) + 0.5) * step
                            guard y >= minY, y < maxY else { continue }
                            let row = Int(y) * w
                            for sx in 0..<samples {
                                let x = left + (Double(sx) + 0.5) * step
                                guard x >= minX, x < maxX else { continue }
                                let p = (row + Int(x)) * 3
                                sum += SIMD3(Double(rgb[p]), Double(rgb[p + 1]), Double(rgb[p + 2]))
                                count += 1
                            }
                        }
                        guard count > 0 else { continue }
                        let mean = sum / count
                        let o = (v * n + u) * 3
                        out[o] = Float(mean.x / 127.5 - 1)
                        out[o + 1] = Float(mean.y / 127.5 - 1)
                        out[o + 2] = Float(mean.z / 127.5 - 1)
                    }
                }
            }
        }
        return out
    }
}
