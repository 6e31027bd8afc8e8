import Foundation
import Testing

/// Gives each test of a suite its own empty folder for the files it writes (databases, device
/// ids), removed when the test ends, so test runs leave nothing behind in the temporary directory.
public struct ScratchFolder: SuiteTrait, TestTrait, TestScoping {
    /// The running test's folder.
    @TaskLocal public static var current: URL?

    /// A new path named `name` in the running test's folder (the temporary directory outside
    /// such a test).
    public static func path(_ name: String) -> URL {
        (current ?? FileManager.default.temporaryDirectory).appendingPathComponent("\(UUID().uuidString)-\(name)")
    }

    // Recursive, so each test gets its own folder; such a trait must be a `TestTrait` too
    // (swift-testing issue #1048: otherwise the runner traps).
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil else { return try await function() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Self.$current.withValue(folder, operation: function)
    }
}

extension Trait where Self == ScratchFolder {
    /// A scratch folder for each test, removed when it ends.
    public static var scratchFolder: Self { ScratchFolder() }
}
