/// The face of a still photo (a reference image, one side of a 1:1 comparison): the largest face
/// found, its descriptor, and how many faces the photo holds.
public struct PhotoFace: Sendable {
    /// Why a photo gives no descriptor.
    public enum Failure: Error, Equatable, Sendable {
        /// No face was found.
        case noFace
        /// The encoder failed on the face found.
        case encoderFailed
    }

    /// The largest face's descriptor.
    public let descriptor: FaceDescriptor
    /// Faces found (largest used).
    public let faces: Int

    /// Finds faces down to `minFaceFraction` of the short side (photos frame faces smaller than a
    /// selfie camera does) and describes the largest.
    public init(in image: Image, analyzer: some FaceAnalyzing,
                minFaceFraction: Double = DetectionOptions.photos.minFaceFraction) throws(Failure) {
        let faces = analyzer.detect(in: image, minFaceFraction: minFaceFraction)
        guard let face = faces.first else { throw .noFace }
        do {
            descriptor = try analyzer.descriptor(for: face, in: image)
        } catch {
            throw .encoderFailed
        }
        self.faces = faces.count
    }
}
