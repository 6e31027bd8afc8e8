import VigilFace

/// `vigil compare A B`: 1:1 face comparison; exit 0 matched, 1 not matched, 2 error.
enum CompareCommand {
    static let usage = "vigil compare IMAGE_A IMAGE_B [--threshold 0.6] [--single]"

    struct Report: Encodable {
        let matched: Bool
        let distance: Double
        let similarity: Double
        let threshold: Double
        let facesInA: Int
        let facesInB: Int
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, valued: ["threshold", "min-face"], switches: ["single"])
        guard args.positionals.count == 2 else { throw CLIError.usage("usage: \(usage)") }
        let threshold = try args.double("threshold", default: FaceMatcher.defaultThreshold, range: 0.01...2)
        let minFace = try args.double("min-face", default: DetectionOptions.photos.minFaceFraction, range: 0.01...1)
        let images = try args.positionals.map { try ImageLoader.load($0) }
        let analyzer = try FaceAnalyzer(models: try FaceModels())
        var descriptors: [FaceDescriptor] = []
        var counts: [Int] = []
        for (name, image) in zip(["A", "B"], images) {
            let face: PhotoFace
            do {
                face = try PhotoFace(in: image, analyzer: analyzer, minFaceFraction: minFace)
            } catch .noFace {
                throw CLIError(code: "no_face", message: "no face found in image \(name)")
            } catch {
                throw CLIError(code: "encoder_failed", message: "image \(name): the face could not be described")
            }
            if args.has("single") && face.faces > 1 {
                throw CLIError(code: "multiple_faces", message: "image \(name) holds \(face.faces) faces")
            }
            descriptors.append(face.descriptor)
            counts.append(face.faces)
        }
        let match = FaceMatcher(threshold: threshold).compare(descriptors[0], descriptors[1])
        try printJSON(Report(matched: match.matched, distance: match.distance, similarity: match.similarity,
                             threshold: threshold, facesInA: counts[0], facesInB: counts[1]))
        return match.matched ? 0 : 1
    }
}
