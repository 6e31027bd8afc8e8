import VigilCore
import VigilFace

/// The face on a document's portrait: the largest face printed on the page, described for
/// comparison with the live face (the threshold of `FaceMatcher`, as for a reference photo).
public enum DocumentPortrait {
    /// A portrait fills about a tenth of a data page's short side or more; smaller faces (the
    /// ghost image, a face in the background) are not looked for.
    public static let minFaceFraction = 0.1

    /// The descriptor of the largest face whose centre lies on `page` of `photo`, nil when there
    /// is none. A face beside the page (the person holding the document up beside their own)
    /// is not the portrait.
    public static func descriptor(in photo: Image, page: DocumentPage, analyzer: some FaceAnalyzing) -> FaceDescriptor? {
        let box = page.bounds(width: photo.width, height: photo.height)
        guard let crop = photo.cropped(to: box) else { return nil }
        let face = analyzer.detect(in: crop, minFaceFraction: minFaceFraction).first {
            page.contains(Point2D(x: box.x + $0.box.midX, y: box.y + $0.box.midY))
        }
        return face.flatMap { try? analyzer.descriptor(for: $0, in: crop) }
    }
}
