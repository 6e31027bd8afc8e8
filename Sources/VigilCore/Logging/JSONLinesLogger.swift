import Foundation

/// Writes each line as one JSON object (`time`, `level`, `event`, then the fields, keys sorted)
/// to a file handle, stderr by default.
public final class JSONLinesLogger: Logger, @unchecked Sendable {
    // Invariant: `handle` is written only with `lock` held, so lines never interleave.
    public let level: LogLevel
    private let handle: FileHandle
    private let lock = NSLock()

    /// A logger writing lines at `level` and above to `handle`.
    public init(level: LogLevel = .info, handle: FileHandle = .standardError) {
        self.level = level
        self.handle = handle
    }

    public func log(_ level: LogLevel, _ event: String, _ fields: [String: LogValue]) {
        guard level >= self.level else { return }
        let line = Self.line(level, event, fields, at: Date())
        lock.lock()
        handle.write(Data(line.utf8))
        lock.unlock()
    }

    /// The JSON line (with its newline) for one event.
    public static func line(_ level: LogLevel, _ event: String, _ fields: [String: LogValue], at date: Date) -> String {
        var parts = ["\"time\":\(quoted(date.formatted(.iso8601)))", "\"level\":\(quoted(level.name))", "\"event\":\(quoted(event))"]
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) where !["time", "level", "event"].contains(key) {
            let rendered: String
            switch value {
            case .text(let text): rendered = quoted(text)
            case .integer(let number): rendered = String(number)
            case .number(let number): rendered = number.isFinite ? String(format: "%.3f", number) : "null"
            }
            parts.append("\(quoted(key)):\(rendered)")
        }
        return "{" + parts.joined(separator: ",") + "}\n"
    }

    /// `text` as a JSON string.
    static func quoted(_ text: String) -> String { "\"" + VigilJSON.escaped(text) + "\"" }
}
