import Dispatch
import Synchronization

/// A fixed set of face analyzers, lent out one caller at a time: `FaceAnalyzer`s over one shared
/// `FaceModels` in the product, or what a test whose subject is not faces stands in.
///
/// Memory with `FaceAnalyzer`s: the shared models (~125 MB) plus ~25 MB per worker.
public final class AnalyzerPool: Sendable {
    private let idle: Mutex<[any FaceAnalyzing]>
    private let available: DispatchSemaphore
    /// Number of analyzers.
    public let size: Int

    /// Creates `size` analyzers over `models`.
    public convenience init(models: FaceModels, size: Int, options: DetectionOptions = DetectionOptions()) throws(ModelError) {
        precondition(size > 0, "a pool needs at least one analyzer")
        var analyzers: [FaceAnalyzer] = []
        for _ in 0..<size { analyzers.append(try FaceAnalyzer(models: models, options: options)) }
        self.init(analyzers: analyzers)
    }

    /// A pool of `analyzers`, each used by one caller at a time.
    public init(analyzers: [any FaceAnalyzing]) {
        precondition(!analyzers.isEmpty, "a pool needs at least one analyzer")
        size = analyzers.count
        idle = Mutex(analyzers)
        available = DispatchSemaphore(value: size)
    }

    /// Runs `body` with an analyzer of its own, waiting while all are busy.
    public func withAnalyzer<T>(_ body: (any FaceAnalyzing) throws -> T) rethrows -> T {
        available.wait()
        let analyzer = idle.withLock { $0.removeLast() }
        defer {
            idle.withLock { $0.append(analyzer) }
            available.signal()
        }
        return try body(analyzer)
    }
}
