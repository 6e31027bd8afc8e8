import VigilFace

/// The face on a document's portrait: the largest face of the photo of its page, described for
/// comparison with the live face (the threshold of `FaceMatcher`, as for a reference photo).
public enum DocumentPortrait {
    /// A portrait fills about a tenth of a data page's short side or more; smaller faces (the
    /// ghost image, a face in the background) are not looked for.
    public static let minFaceFraction = 0.1

    /// The descriptor of the largest face on `photo`, nil when there is none.
    public static func descriptor(in photo: Image, analyzer: FaceAnalyzer) -> FaceDescriptor? {
        try? PhotoFace(in: photo, analyzer: analyzer, minFaceFraction: minFaceFraction).descriptor
    }
}
