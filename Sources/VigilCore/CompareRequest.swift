/// Body of `POST /v1/compare`: two photos (JPEG or PNG, base64) for a 1:1 face comparison.
public struct CompareRequest: Codable, Hashable, Sendable {
    /// The first photo.
    public var imageA: String
    /// The second photo.
    public var imageB: String

    /// The fields a request may carry.
    public static let fields: Set<String> = ["imageA", "imageB"]

    /// A request.
    public init(imageA: String, imageB: String) {
        self.imageA = imageA
        self.imageB = imageB
    }
}

/// Answer of `POST /v1/compare`: the largest face of each photo compared.
public struct CompareResult: Codable, Hashable, Sendable {
    /// Whether they are the same person.
    public var matched: Bool
    /// In [0, 1]; 0.5 at the threshold.
    public var similarity: Double
    /// Descriptor distance (same person below `threshold`).
    public var distance: Double
    /// The threshold used.
    public var threshold: Double
    /// Faces found in each photo (the largest is compared).
    public var facesInA: Int, facesInB: Int

    /// A result.
    public init(matched: Bool, similarity: Double, distance: Double, threshold: Double, facesInA: Int, facesInB: Int) {
        self.matched = matched
        self.similarity = similarity
        self.distance = distance
        self.threshold = threshold
        self.facesInA = facesInA
        self.facesInB = facesInB
    }
}
