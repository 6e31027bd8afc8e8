import Foundation
import Synchronization
import VigilSDK

/// `vigil capture`: the headless capture host as a command. Prints each state of the stream as
/// a JSON line; exit 0 passed, 1 failed or cancelled, 2 error.
enum CaptureCommand {
    static let usage = "usage: vigil capture --server URL --session-id ID --token T (--frames SESSION_DIR | --y4m FILE) [--no-security]"

    static func run(_ raw: [String]) throws -> Int32 {
        let arguments = try Arguments(raw, valued: ["server", "session-id", "token", "frames", "y4m"], switches: ["no-security"])
        guard let server = arguments.value("server").flatMap(URL.init(string:)), let id = arguments.value("session-id"),
              let token = arguments.value("token"), arguments.positionals.isEmpty else { throw CLIError.usage(usage) }
        let source: any FrameSource
        switch (arguments.value("frames"), arguments.value("y4m")) {
        case (let dir?, nil):
            do { source = try JPEGFolderSource(directory: URL(fileURLWithPath: dir)) } catch { throw CLIError(code: "invalid_session", message: "\(error)") }
        case (nil, let file?): source = try Y4MFrameSource(url: URL(fileURLWithPath: file))
        default: throw CLIError.usage("give exactly one of --frames or --y4m\n\(usage)")
        }
        let config = VigilConfig(serverURL: server, enableSecurity: !arguments.has("no-security"))
        let box = SourceBox(source: source)
        let code = Mutex<Int32>(2), done = Atomic(false)
        Task { @MainActor in
            let client = VigilClient.shared
            do {
                try await client.initialize(config: config)
            } catch {
                line(["state": "error", "error": "invalidConfiguration", "detail": "\(error)"])
                done.store(true, ordering: .releasing)
                return
            }
            for await state in client.startLivenessCheck(host: HeadlessCaptureHost { box.source }, sessionId: id, sessionToken: token) {
                switch state {
                case .loading: line(["state": "loading"])
                case .success(let result):
                    line(["state": "success", "outcome": result.outcome, "feedback": result.feedback, "signedResult": result.signedResult])
                    code.withLock { $0 = result.outcome == "passed" ? 0 : 1 }
                case .error(let error):
                    line(["state": "error", "error": "\(error)".split(separator: ":").first.map(String.init) ?? "", "detail": error.description])
                    code.withLock { $0 = error.isUserCancellation ? 1 : 2 }
                }
            }
            done.store(true, ordering: .releasing)
        }
        // The client lives on the main actor: the main thread runs its jobs until the stream ends.
        while !done.load(ordering: .acquiring) { RunLoop.main.run(until: Date().addingTimeInterval(0.05)) }
        return code.withLock { $0 }
    }

    /// A source handed to the host's factory; used by that one capture only.
    private struct SourceBox: @unchecked Sendable { let source: any FrameSource }

    private static func line(_ object: [String: Any]) {
        if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) {
            FileHandle.standardOutput.write(data + Data([0x0A]))   // unbuffered: a reader sees each state at once
        }
    }
}
