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
        var parts = ["\"time\":\"\(timestamp(date))\"", "\"level\":\(quoted(level.name))", "\"event\":\(quoted(event))"]
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

    /// `date` as UTC ISO 8601 with milliseconds, made without a formatter: a server writes one
    /// line per request.
    public static func timestamp(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let ms = Int(milliseconds % 1000)
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))."
            + (ms < 10 ? "00\(ms)" : ms < 100 ? "0\(ms)" : "\(ms)") + "Z"
    }

    /// `text` as a JSON string.
    static func quoted(_ text: String) -> String { "\"" + VigilJSON.escaped(text) + "\"" }
}
