import Foundation
import VigilCore

/// A failure the CLI reports as `{"error": {"code", "message"}}` on stderr with a non-zero exit.
struct CLIError: Error {
    /// Stable snake_case code.
    let code: String
    /// Human-readable explanation.
    let message: String
    /// Process exit status.
    var exitCode: Int32 = 2

    static func usage(_ message: String) -> CLIError { CLIError(code: "usage", message: message) }

    func report() {
        struct Body: Encodable { let error: [String: String] }
        let line = (try? VigilJSON.string(Body(error: ["code": code, "message": message]))) ?? "{}"
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// Writes one JSON document and a newline to stdout.
func printJSON<T: Encodable>(_ value: T) throws {
    FileHandle.standardOutput.write(Data((try VigilJSON.string(value) + "\n").utf8))
}
