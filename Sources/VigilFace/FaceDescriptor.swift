/// A 128-d face embedding; faces of one person lie within ~0.6 of each other.
public struct FaceDescriptor: Codable, Hashable, Sendable {
    /// Number of dimensions.
    public static let dimension = 128
    /// The embedding.
    public let values: [Float]

    /// Wraps 128 values.
    public init(_ values: [Float]) {
        precondition(values.count == Self.dimension, "a face descriptor has \(Self.dimension) values")
        self.values = values
    }

    /// Euclidean distance to another descriptor.
    public func distance(to other: FaceDescriptor) -> Double {
        var sum: Float = 0
        for i in 0..<Self.dimension {
            let d = values[i] - other.values[i]
            sum += d * d
        }
        return Double(sum.squareRoot())
    }
}
