import Foundation
import VigilCore
import VigilFace

/// `vigil analyze IMAGE...`: faces, landmarks, pose, openness and quality as JSON.
enum AnalyzeCommand {
    static let usage = "vigil analyze IMAGE... [--min-face FRACTION]"

    struct FaceReport: Encodable {
        let box: Rect
        let score: Double
        let landmarks: [[Double]]
        let pose: HeadPose
        let eyes: EyeOpenness
        let mouth: Double
        let quality: FaceQuality
        let color: FaceColor
        let placement: FacePlacement

        init(_ face: FaceObservation) {
            box = face.box
            score = face.score
            landmarks = face.landmarks.map { [$0.x, $0.y] }
            pose = face.pose
            eyes = face.eyes
            mouth = face.mouth
            quality = face.quality
            color = face.color
            placement = face.placement
        }
    }

    struct ImageReport: Encodable {
        let file: String
        var width: Int?
        var height: Int?
        var faces: [FaceReport]?
        var error: [String: String]?
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, valued: ["min-face"])
        guard !args.positionals.isEmpty else { throw CLIError.usage("usage: \(usage)") }
        let minFace = try args.double("min-face", default: DetectionOptions.photos.minFaceFraction, range: 0.01...1)
        let analyzer = try FaceAnalyzer(models: try FaceModels(), options: DetectionOptions(minFaceFraction: minFace))
        var reports: [ImageReport] = []
        var failed = false
        for file in args.positionals {
            do {
                let image = try ImageLoader.load(file)
                let faces = analyzer.detect(in: image).map(FaceReport.init)
                reports.append(ImageReport(file: file, width: image.width, height: image.height, faces: faces))
            } catch let error as CLIError {
                failed = true
                error.report()
                reports.append(ImageReport(file: file, error: ["code": error.code, "message": error.message]))
            }
        }
        try printJSON(reports)
        return failed ? 2 : 0
    }
}

/// Reads image files for CLI commands, turning every failure into a `bad_image` CLIError.
enum ImageLoader {
    static func load(_ path: String, maxPixels: Int = Image.defaultMaxPixels) throws -> Image {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CLIError(code: "bad_image", message: "\(path): cannot be read")
        }
        do {
            return try Image(encoded: data, maxPixels: maxPixels)
        } catch {
            throw CLIError(code: "bad_image", message: "\(path): \(error.description)")
        }
    }
}
