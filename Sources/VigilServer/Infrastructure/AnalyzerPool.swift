import Foundation
import VigilFace

/// Face analyzers shared by the request threads: each frame borrows one (they are not
/// thread-safe) and returns it.
final class AnalyzerPool: @unchecked Sendable {
    // Invariant: `idle` is only touched with `condition` locked.
    private let condition = NSCondition()
    private var idle: [FaceAnalyzer]

    /// `count` analyzers over shared models.
    init(models: FaceModels, count: Int) throws {
        idle = try (0..<max(1, count)).map { _ in try FaceAnalyzer(models: models) }
    }

    /// Runs `body` with an analyzer no other thread is using.
    func with<T>(_ body: (FaceAnalyzer) throws -> T) rethrows -> T {
        condition.lock()
        while idle.isEmpty { condition.wait() }
        let analyzer = idle.removeLast()
        condition.unlock()
        defer {
            condition.lock()
            idle.append(analyzer)
            condition.signal()
            condition.unlock()
        }
        return try body(analyzer)
    }
}
