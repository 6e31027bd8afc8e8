/// Comparisons whose time does not depend on where the inputs differ.
public enum ConstantTime {
    /// Whether `a` and `b` are equal; the time depends only on their lengths.
    public static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}
