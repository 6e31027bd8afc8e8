import VigilCore
import VigilFace

/// Face analysis for server tests whose subject is not faces (admission, logging, storage): no
/// models are loaded. Every frame holds one frontal, resting, well-placed face in its middle,
/// whose descriptor is always the same; a frame with no light (mean under 8 of 255) holds none.
struct StandInFaces: FaceAnalyzing {
    /// Two stand-ins, as many as the real pool's analyzers.
    static let pool = AnalyzerPool(analyzers: [StandInFaces(), StandInFaces()])

    func detect(in image: Image, minFaceFraction: Double?) -> [FaceObservation] {
        face(in: image).map { [$0] } ?? []
    }

    func redetect(in image: Image, near previous: FaceObservation, spread: Double) -> FaceObservation? { face(in: image) }

    func track(in image: Image, previous: FaceObservation) -> FaceObservation? {
        face(in: image).map { var tracked = $0; tracked.source = .tracked; return tracked }
    }

    func descriptor(for face: FaceObservation, in image: Image) throws(FaceError) -> FaceDescriptor {
        FaceDescriptor([Float](repeating: 0.05, count: FaceDescriptor.dimension))
    }

    private func face(in image: Image) -> FaceObservation? {
        guard Self.meanLevel(image) >= 8 else { return nil }
        let side = 0.5 * Double(min(image.width, image.height))
        let box = Rect(x: (Double(image.width) - side) / 2, y: (Double(image.height) - side) / 2, width: side, height: side)
        // The 68-point scheme's layout on the unit square, placed in the box (only the eyes, the
        // mouth and the spread of the points are read downstream).
        let landmarks = (0..<68).map { i in Point2D(x: box.x + side * (0.2 + 0.6 * Double(i % 17) / 16), y: box.y + side * (0.3 + 0.5 * Double(i / 17) / 3)) }
        return FaceObservation(
            box: box, score: 1, landmarks: landmarks, pose: HeadPose(yaw: 0, pitch: 0, roll: 0),
            eyes: EyeOpenness(left: 0.3, right: 0.3), mouth: 0.02,
            quality: FaceQuality(sharpness: 200, brightness: 0.5, contrast: 0.2), color: FaceColor(red: 0.6, green: 0.45, blue: 0.4),
            placement: FacePlacement(relativeSize: 0.5, centerOffset: Point2D(x: 0, y: 0), interocularDistance: 0.3 * side),
            source: .detected, framesSinceDetection: 0, anchor: Rect(x: 0, y: 0, width: 1, height: 1))
    }

    /// The mean of every 97th byte of the pixels: enough to tell a black frame.
    private static func meanLevel(_ image: Image) -> Double {
        let samples = stride(from: 0, to: image.rgb.count, by: 97).map { Double(image.rgb[$0]) }
        return samples.isEmpty ? 0 : samples.reduce(0, +) / Double(samples.count)
    }
}
