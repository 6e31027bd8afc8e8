/// Small dense linear systems, solved by Gauss-Jordan elimination with partial pivoting: the
/// plane map of four points (8 unknowns) and the reader's projective grid (3).
enum LinearSystem {
    /// The unknowns of `augmented` (n rows of n coefficients and the right-hand side); nil when a
    /// pivot is at most `tolerance` (the equations do not determine them).
    static func solve(_ augmented: [[Double]], tolerance: Double) -> [Double]? {
        var m = augmented
        let n = m.count
        for column in 0..<n {
            guard let pivot = (column..<n).max(by: { abs(m[$0][column]) < abs(m[$1][column]) }), abs(m[pivot][column]) > tolerance else {
                return nil
            }
            m.swapAt(column, pivot)
            for row in 0..<n where row != column {
                let factor = m[row][column] / m[column][column]
                if factor != 0 { for k in column...n { m[row][k] -= factor * m[column][k] } }
            }
        }
        return (0..<n).map { m[$0][n] / m[$0][$0] }
    }
}
