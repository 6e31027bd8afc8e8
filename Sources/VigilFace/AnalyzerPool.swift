import Dispatch
import Synchronization

/// A fixed set of `FaceAnalyzer`s over one shared `FaceModels`, lent out one caller at a time.
///
/// Memory: the shared models (~125 MB) plus ~25 MB per worker.
public final class AnalyzerPool: Sendable {
    private let idle: Mutex<[FaceAnalyzer]>
    private let available: DispatchSemaphore
    /// Number of analyzers.
    public let size: Int

    /// Creates `size` analyzers over `models`.
    public init(models: FaceModels, size: Int, options: DetectionOptions = DetectionOptions()) throws(ModelError) {
        precondition(size > 0, "a pool needs at least one analyzer")
        var analyzers: [FaceAnalyzer] = []
        for _ in 0..<size { analyzers.append(try FaceAnalyzer(models: models, options: options)) }
        idle = Mutex(analyzers)
        available = DispatchSemaphore(value: size)
        self.size = size
    }

    /// Runs `body` with an analyzer of its own, waiting while all are busy.
    public func withAnalyzer<T>(_ body: (FaceAnalyzer) throws -> T) rethrows -> T {
        available.wait()
        let analyzer = idle.withLock { $0.removeLast() }
        defer {
            idle.withLock { $0.append(analyzer) }
            available.signal()
        }
        return try body(analyzer)
    }
}
