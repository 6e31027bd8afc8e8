/// Face analysis as the liveness frame loop (`CaptureAttempt`), photos and the server's pool
/// (`AnalyzerPool`) use it: `FaceAnalyzer` on the set-up models in the product; a test whose
/// subject is not faces may stand in its own. One caller at a time per instance.
public protocol FaceAnalyzing: Sendable {
    /// Full detection: every face found, largest first, down to `minFaceFraction` of the short
    /// side (the analyzer's own default when nil).
    func detect(in image: Image, minFaceFraction: Double?) -> [FaceObservation]
    /// A detection only around `previous`, in a region `spread` times its box, or nil.
    func redetect(in image: Image, near previous: FaceObservation, spread: Double) -> FaceObservation?
    /// `previous` followed into this frame without a detection, or nil when it is lost.
    func track(in image: Image, previous: FaceObservation) -> FaceObservation?
    /// The face's identity descriptor.
    func descriptor(for face: FaceObservation, in image: Image) throws(FaceError) -> FaceDescriptor
}

extension FaceAnalyzing {
    /// Full detection at the analyzer's own smallest face.
    public func detect(in image: Image) -> [FaceObservation] { detect(in: image, minFaceFraction: nil) }

    /// A detection around `previous` in a region 1.8 times its box.
    public func redetect(in image: Image, near previous: FaceObservation) -> FaceObservation? {
        redetect(in: image, near: previous, spread: 1.8)
    }
}
