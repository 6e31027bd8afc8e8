import Foundation

/// How much a log line matters; a logger drops lines below its level.
public enum LogLevel: Int, Comparable, CaseIterable, Sendable {
    /// Details for development.
    case debug
    /// Normal operation: one line per request.
    case info
    /// Something failed and will be retried or worked around (a webhook, a key refresh).
    case warning
    /// Something failed for the caller or for good (a 5xx, a store failure).
    case error

    /// Its name, as `--log-level` takes it and log lines show it.
    public var name: String { String(describing: self) }

    /// The level named `name`.
    public init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = level
    }

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
}

/// One value of a log line.
public enum LogValue: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    /// Text.
    case text(String)
    /// A whole number.
    case integer(Int)
    /// A measurement.
    case number(Double)

    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
}

/// Where the server writes what it does. Callers never pass tokens, keys, bodies or personal
/// data as fields.
public protocol Logger: Sendable {
    /// The lowest level written.
    var level: LogLevel { get }
    /// Writes `event` with `fields` when `level` is at or above the logger's.
    func log(_ level: LogLevel, _ event: String, _ fields: [String: LogValue])
}

/// A logger that writes nothing (the default for tests and library use).
public struct SilentLogger: Logger {
    /// Above every level.
    public var level: LogLevel { .error }
    /// A silent logger.
    public init() {}
    public func log(_ level: LogLevel, _ event: String, _ fields: [String: LogValue]) {}
}
