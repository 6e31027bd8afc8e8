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

    /// The values as 512 bytes (little-endian Float32), for storage.
    public var bytes: [UInt8] {
        values.flatMap { value in withUnsafeBytes(of: value.bitPattern.littleEndian) { Array($0) } }
    }

    /// A descriptor from `bytes`' layout; nil when the length or a value is wrong.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.dimension * 4 else { return nil }
        let values = (0..<Self.dimension).map { i in
            Float(bitPattern: (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[i * 4 + $1]) << (8 * $1) })
        }
        guard values.allSatisfy(\.isFinite) else { return nil }
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
