import Foundation

/// The outcome of comparing two faces.
public struct FaceMatch: Codable, Hashable, Sendable {
    /// Whether the distance is within the threshold.
    public var matched: Bool
    /// Euclidean distance between the descriptors.
    public var distance: Double
    /// A score in [0, 1]: 0.5 at the threshold, toward 1 for closer faces.
    public var similarity: Double
    /// The threshold used.
    public var threshold: Double
}

/// Decides whether two descriptors belong to the same person.
public struct FaceMatcher: Sendable {
    /// dlib's recommended same-person threshold for this model.
    public static let defaultThreshold = 0.6
    /// Distances at or below this match.
    public let threshold: Double
    /// Steepness of the logistic map from distance to similarity.
    private static let steepness = 12.0

    /// Creates a matcher; `threshold` must be positive.
    public init(threshold: Double = FaceMatcher.defaultThreshold) {
        precondition(threshold > 0, "threshold must be positive")
        self.threshold = threshold
    }

    /// Compares two descriptors.
    public func compare(_ a: FaceDescriptor, _ b: FaceDescriptor) -> FaceMatch {
        let distance = a.distance(to: b)
        let similarity = 1 / (1 + exp(Self.steepness * (distance - threshold)))
        return FaceMatch(matched: distance <= threshold, distance: distance, similarity: similarity, threshold: threshold)
    }
}
