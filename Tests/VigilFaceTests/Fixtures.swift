import Foundation
import VigilCore
@testable import VigilFace

/// Real photos fetched by scripts/setup, and the models loaded once for all tests.
enum Fixtures {
    static var directory: URL {
        if let path = ProcessInfo.processInfo.environment["VIGIL_FIXTURES"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/vigil/fixtures")
    }

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    static func image(_ name: String) throws -> Image {
        try Image(encoded: data(name))
    }

    static let models: Result<FaceModels, ModelError> = Result { () throws(ModelError) in try FaceModels() }

    static func analyzer(_ options: DetectionOptions = DetectionOptions()) throws -> FaceAnalyzer {
        try FaceAnalyzer(models: models.get(), options: options)
    }

    /// Whether the 68-point baseline's files are in place: scripts/setup fetches them only with
    /// `VIGIL_LANDMARKS=ibug68` (non-commercial terms), so a test of that path or against it runs
    /// only then.
    static let baselineInstalled = [FaceModels.shapePredictorFile, FaceModels.meanFaceFile].allSatisfy {
        FileManager.default.isReadableFile(atPath: FaceModels.defaultDirectory.appendingPathComponent($0).path)
    }

    static let baselineModels: Result<FaceModels, ModelError> = Result { () throws(ModelError) in try FaceModels(landmarks: .ibug68) }

    /// An analyzer on the 68-point baseline (`baselineInstalled`).
    static func baselineAnalyzer(_ options: DetectionOptions = DetectionOptions()) throws -> FaceAnalyzer {
        try FaceAnalyzer(models: baselineModels.get(), options: options)
    }

    /// Obama's portrait as a 640x480 camera frame (`frame(from:face:)`) around the face's box as
    /// the mesh, or with `baseline` the 68-point baseline, places it; nil if no face is found.
    static func cameraFrame(baseline: Bool = false) throws -> Image? {
        let photo = try image("obama.jpg")
        let analyzer = try baseline ? baselineAnalyzer(.photos) : analyzer(.photos)
        return analyzer.detect(in: photo).first.map { frame(from: photo, face: $0.box) }
    }

    /// The photo's content turned clockwise by `degrees` about `centre` (the image keeps its size).
    static func rotated(_ photo: Image, degrees: Double, about centre: Point2D) -> Image {
        let theta = degrees * .pi / 180
        // Sample the source at the inverse rotation.
        return photo.remapped(width: photo.width, height: photo.height) { x, y in
            let dx = Double(x) - centre.x, dy = Double(y) - centre.y
            return Point2D(x: centre.x + dx * cos(theta) + dy * sin(theta), y: centre.y - dx * sin(theta) + dy * cos(theta))
        }
    }

    /// A 640x480 camera-like frame around the face of a portrait (the face ~ 45% of the height).
    static func frame(from photo: Image, face: Rect) -> Image {
        let cropHeight = face.height / 0.45, cropWidth = cropHeight * 4 / 3
        let crop = Rect(x: face.midX - cropWidth / 2, y: face.midY - cropHeight / 2, width: cropWidth, height: cropHeight)
        let sx = cropWidth / 640, sy = cropHeight / 480
        return photo.remapped(width: 640, height: 480) { x, y in
            Point2D(x: crop.x + Double(x) * sx, y: crop.y + Double(y) * sy)
        }
    }

    /// The frame seen as a plane turned by `degrees` about a vertical axis through `centre`,
    /// under a pinhole camera with focal length 640 px.
    static func turned(_ frame: Image, degrees: Double, centre: Point2D, shift: Double = 0) -> Image {
        let theta = degrees * .pi / 180, f = 640.0
        return frame.remapped(width: frame.width, height: frame.height) { x, y in
            let u = Double(x) - centre.x - shift, v = Double(y) - centre.y
            let planeX = u * f / (f * cos(theta) - u * sin(theta))
            let planeY = v * (f + planeX * sin(theta)) / f
            return Point2D(x: centre.x + planeX, y: centre.y + planeY)
        }
    }
}
