import CDlibFace
import Foundation

/// The read-only dlib models, loaded once and shared by every `FaceAnalyzer`.
///
/// Memory: the 68-point shape predictor is ~100 MB and the ResNet ~22 MB; they are loaded once per
/// process. Each analyzer adds its own HOG detector and ResNet copy (~25 MB per worker).
public final class FaceModels: @unchecked Sendable {
    // Invariant making this Sendable: the pointers are owned by this object, never mutated after
    // init, and only used through const dlib calls (shape prediction) or copied (the prototypes).
    let shapePredictor: OpaquePointer
    let encoderPrototype: OpaquePointer
    let detectorPrototype: OpaquePointer

    /// 68 mean-face points (x right, y down, z away from the camera), for head pose.
    public let meanFace: [SIMD3<Double>]

    /// File names expected in the models directory.
    public static let shapePredictorFile = "shape_predictor_68_face_landmarks.dat"
    /// The ResNet face-recognition model.
    public static let encoderFile = "dlib_face_recognition_resnet_model_v1.dat"
    /// The mean face written by scripts/setup.
    public static let meanFaceFile = "mean_face_68.txt"

    /// `$VIGIL_MODELS`, or `~/.cache/vigil/models`.
    public static var defaultDirectory: URL {
        if let path = ProcessInfo.processInfo.environment["VIGIL_MODELS"], !path.isEmpty {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/vigil/models", isDirectory: true)
    }

    /// Loads the models from `directory` (default: `defaultDirectory`). Takes about 1-2 s.
    public init(directory: URL = FaceModels.defaultDirectory) throws(ModelError) {
        func path(_ name: String) throws(ModelError) -> String {
            let url = directory.appendingPathComponent(name)
            guard FileManager.default.isReadableFile(atPath: url.path) else {
                throw .missingFile(name: name, directory: directory.path)
            }
            return url.path
        }
        meanFace = try Self.loadMeanFace(path(Self.meanFaceFile))
        let shapePath = try path(Self.shapePredictorFile), encoderPath = try path(Self.encoderFile)
        var message = [CChar](repeating: 0, count: 512)
        guard let shape = vf_shape_model_load(shapePath, &message, message.count) else {
            throw .invalidFile(name: Self.shapePredictorFile, reason: Self.text(message))
        }
        guard vf_shape_model_parts(shape) == 68 else {
            vf_shape_model_destroy(shape)
            throw .invalidFile(name: Self.shapePredictorFile, reason: "expected 68 landmarks")
        }
        guard let encoder = vf_encoder_load(encoderPath, &message, message.count) else {
            vf_shape_model_destroy(shape)
            throw .invalidFile(name: Self.encoderFile, reason: Self.text(message))
        }
        guard let detector = vf_detector_create() else {
            vf_shape_model_destroy(shape)
            vf_encoder_destroy(encoder)
            throw .allocationFailed("a HOG detector")
        }
        shapePredictor = shape
        encoderPrototype = encoder
        detectorPrototype = detector
    }

    deinit {
        vf_shape_model_destroy(shapePredictor)
        vf_encoder_destroy(encoderPrototype)
        vf_detector_destroy(detectorPrototype)
    }

    private static func text(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func loadMeanFace(_ path: String) throws(ModelError) -> [SIMD3<Double>] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw .invalidFile(name: meanFaceFile, reason: "unreadable")
        }
        let rows = text.split(separator: "\n").map { $0.split(separator: " ").compactMap { Double($0) } }
        guard rows.count == 68, rows.allSatisfy({ $0.count == 3 }) else {
            throw .invalidFile(name: meanFaceFile, reason: "expected 68 lines of x y z")
        }
        // The file's z points toward the camera; pose fitting uses a right-handed frame with y down.
        return rows.map { SIMD3($0[0], $0[1], -$0[2]) }
    }
}
