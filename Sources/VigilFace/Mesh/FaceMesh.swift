import Foundation
import VigilCore

/// MediaPipe's 478-point face mesh (`face_landmarks_detector.tflite`, the face landmarker's,
/// Apache-2.0) run by LiteRT on the CPU.
///
/// Not Sendable: it holds a compiled model that serves one call at a time (one per analyzer).
public final class FaceMesh {
    /// The mesh model, from MediaPipe's `face_landmarker.task` bundle (scripts/setup).
    public static let modelFile = "face_landmarks_detector.tflite"
    /// LiteRT's C runtime, from the `ai-edge-litert` 2.3.0 wheel.
    public static let runtimeFile = "litert/libLiteRt.so"
    /// The one build of the runtime whose C functions `CLiteRT` declares (scripts/setup pins it).
    public static let runtimeSHA256 = "eec47eb35e2924b3166015887e652a58edc9af823ae38e02bf83bef2548300bb"

    private let network: LiteRTModel
    private let inputSide: Int
    private let pointsOutput: Int
    private let presenceOutput: Int

    /// Loads the runtime and the mesh model from `directory` (default: `FaceModels.defaultDirectory`).
    public init(directory: URL = FaceModels.defaultDirectory) throws(ModelError) {
        network = try LiteRTModel(modelFile: Self.modelFile, in: directory)
        // One 256x256 RGB image in; the 478 points (x, y, z) and the face's presence out. The
        // presence is the single value shaped as an image (1x1x1x1); the model's other single
        // value (1x1) is not it: it reads 0 on faces and on parts of the background alike.
        guard network.inputShape.count == 4, network.inputShape[1] == network.inputShape[2], network.inputShape[3] == 3,
              let points = network.outputCounts.firstIndex(of: MeshLandmarks.count * 3),
              let presence = network.outputShapes.firstIndex(of: [1, 1, 1, 1]) else {
            throw .invalidFile(name: Self.modelFile, reason: "not a 478-point face mesh")
        }
        inputSide = network.inputShape[1]
        pointsOutput = points
        presenceOutput = presence
    }

    /// The mesh of the face in `region` of `image`.
    public func landmarks(in image: Image, region: FaceRegion) throws(ModelError) -> MeshLandmarks {
        // A region read from non-finite points would sample nowhere (and trap converting to pixels).
        guard region.side.isFinite, region.side >= 1, region.angle.isFinite, region.center.x.isFinite, region.center.y.isFinite else {
            throw .runFailed("the face region is not a square of finite size")
        }
        let outputs = try network.run(crop(image, region))
        let raw = outputs[pointsOutput], presence = outputs[presenceOutput]
        let side = Double(inputSide), zScale = region.side / side
        let points = (0..<MeshLandmarks.count).map { i -> SIMD3<Double> in
            let p = region.imagePoint(u: Double(raw[3 * i]) / side, v: Double(raw[3 * i + 1]) / side)
            return SIMD3(p.x, p.y, Double(raw[3 * i + 2]) * zScale)
        }
        guard points.allSatisfy({ $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }), presence[0].isFinite else {
            throw .runFailed("the mesh gave non-finite points")
        }
        return MeshLandmarks(points: points, presence: 1 / (1 + exp(-Double(presence[0]))), region: region)
    }

    /// The mesh read twice: in `region`, then in the region its points call for, as a video's
    /// next frame would be (a detector's box is not the crop the model was trained on).
    public func landmarks(in image: Image, refining region: FaceRegion) throws(ModelError) -> MeshLandmarks {
        try landmarks(in: image, region: landmarks(in: image, region: region).nextRegion)
    }

    /// The region resampled to the model's input: RGB in 0...1, bilinear, edges repeated.
    private func crop(_ image: Image, _ region: FaceRegion) -> [Float] {
        let n = inputSide, w = image.width, h = image.height
        var out = [Float](repeating: 0, count: n * n * 3)
        let origin = region.imagePoint(u: 0.5 / Double(n), v: 0.5 / Double(n))
        let stepU = region.imagePoint(u: 1.5 / Double(n), v: 0.5 / Double(n)) - origin
        let stepV = region.imagePoint(u: 0.5 / Double(n), v: 1.5 / Double(n)) - origin
        image.rgb.withUnsafeBufferPointer { rgb in
            out.withUnsafeMutableBufferPointer { out in
                for v in 0..<n {
                    var p = origin + Double(v) * stepV
                    for u in 0..<n {
                        let x = min(max(p.x, 0), Double(w - 1)), y = min(max(p.y, 0), Double(h - 1))
                        let x0 = Int(x), y0 = Int(y), x1 = min(x0 + 1, w - 1), y1 = min(y0 + 1, h - 1)
                        let fx = x - Double(x0), fy = y - Double(y0)
                        let a = (y0 * w + x0) * 3, b = (y0 * w + x1) * 3, c = (y1 * w + x0) * 3, d = (y1 * w + x1) * 3
                        let o = (v * n + u) * 3
                        for k in 0..<3 {
                            let top = Double(rgb[a + k]) + (Double(rgb[b + k]) - Double(rgb[a + k])) * fx
                            let bottom = Double(rgb[c + k]) + (Double(rgb[d + k]) - Double(rgb[c + k])) * fx
                            out[o + k] = Float((top + (bottom - top) * fy) / 255)
                        }
                        p += stepU
                    }
                }
            }
        }
        return out
    }
}
