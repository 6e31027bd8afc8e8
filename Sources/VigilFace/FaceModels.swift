import CDlibFace
import Foundation

/// The read-only face models, loaded once and shared by every `FaceAnalyzer`.
///
/// Memory: the ResNet is ~22 MB, the 68-point shape predictor (only when it reads the landmarks)
/// ~100 MB; they are loaded once per process. Each analyzer adds its own HOG detector and ResNet
/// copy (~25 MB per worker) and its compiled face mesh.
public final class FaceModels: @unchecked Sendable {
    // Invariant making this Sendable: the pointers are owned by this object, never mutated after
    // init, and only used through const dlib calls (shape prediction) or copied (the prototypes).
    /// dlib's 68-point predictor, loaded only when it reads the landmarks (`LandmarkModel.ibug68`).
    let shapePredictor: OpaquePointer?
    let encoderPrototype: OpaquePointer
    let detectorPrototype: OpaquePointer

    /// A 3D face in the 68-point scheme (x right, y down, z away from the camera): insightface's
    /// mean face with the 68-point model, the mesh's canonical face at `MeshLandmarks.ibugIndices`
    /// with the mesh. Head pose from 68 points, and the synthetic rig's depth.
    public let meanFace: [SIMD3<Double>]
    /// The mesh's canonical face, 468 points in the same frame as `meanFace`, and the weight of
    /// each in a pose fit (with the mesh only).
    public let canonicalFace: (points: [SIMD3<Double>], weights: [Double])?
    /// The model that puts landmarks on faces.
    public let landmarkModel: LandmarkModel
    /// Where the models were read; each analyzer opens its own face mesh there.
    public let directory: URL

    /// File names expected in the models directory.
    public static let shapePredictorFile = "shape_predictor_68_face_landmarks.dat"
    /// The ResNet face-recognition model.
    public static let encoderFile = "dlib_face_recognition_resnet_model_v1.dat"
    /// The mean face written by scripts/setup (for the 68-point model only).
    public static let meanFaceFile = "mean_face_68.txt"
    /// The face mesh's canonical 3D face written by scripts/setup.
    public static let canonicalFaceFile = "canonical_face_468.txt"

    /// `$VIGIL_MODELS`, or `~/.cache/vigil/models`.
    public static var defaultDirectory: URL {
        if let path = ProcessInfo.processInfo.environment["VIGIL_MODELS"], !path.isEmpty {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/vigil/models", isDirectory: true)
    }

    /// Loads the models from `directory` (default: `defaultDirectory`). Takes about 1-2 s.
    public init(directory: URL = FaceModels.defaultDirectory, landmarks: LandmarkModel = .configured) throws(ModelError) {
        func path(_ name: String) throws(ModelError) -> String {
            let url = directory.appendingPathComponent(name)
            guard FileManager.default.isReadableFile(atPath: url.path) else {
                throw .missingFile(name: name, directory: directory.path)
            }
            return url.path
        }
        self.directory = directory
        landmarkModel = landmarks
        let encoderPath = try path(Self.encoderFile)
        var message = [CChar](repeating: 0, count: 512)
        var shape: OpaquePointer?
        if landmarks == .mesh {
            let rows = try Self.loadFace(path(Self.canonicalFaceFile), name: Self.canonicalFaceFile, points: MeshLandmarks.faceCount, columns: 4)
            // MediaPipe's pose points, but those below the nose tip (jaw, lower cheeks): they move
            // with an open mouth, and the pose's pitch moved with them.
            let noseTip = rows[MeshLandmarks.noseTip].point.y
            let points = rows.map { SIMD3($0.point.x, -$0.point.y, $0.point.z) }
            canonicalFace = (points, rows.map { $0.point.y >= noseTip ? $0.weight : 0 })
            meanFace = MeshLandmarks.ibugIndices.map { points[$0] }
        } else {
            canonicalFace = nil
            meanFace = try Self.loadFace(path(Self.meanFaceFile), name: Self.meanFaceFile, points: 68, columns: 3).map(\.point)
            let shapePath = try path(Self.shapePredictorFile)
            guard let loaded = vf_shape_model_load(shapePath, &message, message.count) else {
                throw .invalidFile(name: Self.shapePredictorFile, reason: Self.text(message))
            }
            guard vf_shape_model_parts(loaded) == 68 else {
                vf_shape_model_destroy(loaded)
                throw .invalidFile(name: Self.shapePredictorFile, reason: "expected 68 landmarks")
            }
            shape = loaded
        }
        guard let encoder = vf_encoder_load(encoderPath, &message, message.count) else {
            if let shape { vf_shape_model_destroy(shape) }
            throw .invalidFile(name: Self.encoderFile, reason: Self.text(message))
        }
        guard let detector = vf_detector_create() else {
            if let shape { vf_shape_model_destroy(shape) }
            vf_encoder_destroy(encoder)
            throw .allocationFailed("a HOG detector")
        }
        shapePredictor = shape
        encoderPrototype = encoder
        detectorPrototype = detector
    }

    deinit {
        if let shapePredictor { vf_shape_model_destroy(shapePredictor) }
        vf_encoder_destroy(encoderPrototype)
        vf_detector_destroy(detectorPrototype)
    }

    private static func text(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A 3D face of `points` lines of "x y z" (and a weight as a fourth column). Both files' z
    /// points toward the camera; pose fitting uses a right-handed frame with y down and z away
    /// from the camera. (The canonical face's y also points up, which its caller turns.)
    private static func loadFace(_ path: String, name: String, points: Int, columns: Int) throws(ModelError)
        -> [(point: SIMD3<Double>, weight: Double)] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw .invalidFile(name: name, reason: "unreadable")
        }
        let rows = text.split(separator: "\n").map { $0.split(separator: " ").compactMap { Double($0) } }
        guard rows.count == points, rows.allSatisfy({ $0.count == columns }) else {
            throw .invalidFile(name: name, reason: "expected \(points) lines of \(columns) numbers")
        }
        return rows.map { (SIMD3($0[0], $0[1], -$0[2]), columns > 3 ? $0[3] : 1) }
    }
}
