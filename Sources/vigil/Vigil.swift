import Foundation
import VigilFace

/// The `vigil` command-line entry point.
@main
struct Vigil {
    static let usage = """
    usage: vigil <command> [arguments]
      analyze IMAGE...       faces, landmarks, head pose, eye/mouth openness, quality (JSON)
      compare A B            1:1 face comparison (exit 0 match, 1 no match, 2 error)
      document IMAGE         an identity document's machine-readable zone (exit 0 valid, 1 invalid, expired or unreadable, 2 bad input)
      liveness SESSION_DIR   the liveness engine on a recorded session (exit 0 passed, 1 failed, 2 bad input)
      synth session|eval     synthetic sessions and attacks from photos; the liveness evaluation
      serve                  the verification server (HTTP API, capture page, signed results)
      tenants create|list|delete   tenants (delete erases everything of one)
      keys create|list|revoke      a tenant's API keys (two live at most, for a rotation)
      signing-keys rotate|revoke   the result-signing keys (old ones stay published)
      sessions list|show     stored sessions
      webhooks deliveries    the webhook outbox and its delivery state
      capture                the headless capture host against a server (exit 0 passed, 1 failed, 2 error)
    """

    /// Each command's usage, printed by `vigil COMMAND --help`.
    static let commandUsage: [String: String] = [
        "analyze": AnalyzeCommand.usage, "compare": CompareCommand.usage, "document": DocumentCommand.usage, "liveness": LivenessCommand.usage, "synth": SynthCommand.usage,
        "serve": ServeCommand.usage, "tenants": AdminCommands.usage, "keys": AdminCommands.usage,
        "signing-keys": AdminCommands.usage, "sessions": AdminCommands.usage,
        "webhooks": AdminCommands.usage, "capture": CaptureCommand.usage,
    ]

    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        guard !arguments.isEmpty else {
            CLIError.usage(usage).report()
            exit(2)
        }
        let command = arguments.removeFirst()
        if arguments.contains("--help") || arguments.contains("-h"), let help = commandUsage[command] {
            print(help.hasPrefix("usage:") ? help : "usage: " + help)
            exit(0)
        }
        do {
            let status: Int32
            switch command {
            case "analyze": status = try AnalyzeCommand.run(arguments)
            case "compare": status = try CompareCommand.run(arguments)
            case "document": status = try DocumentCommand.run(arguments)
            case "liveness": status = try LivenessCommand.run(arguments)
            case "synth": status = try SynthCommand.run(arguments)
            case "serve": status = try ServeCommand.run(arguments)
            case "tenants": status = try AdminCommands.tenants(arguments)
            case "keys": status = try AdminCommands.keys(arguments)
            case "signing-keys": status = try AdminCommands.signingKeys(arguments)
            case "sessions": status = try AdminCommands.sessions(arguments)
            case "webhooks": status = try AdminCommands.webhooks(arguments)
            case "capture": status = try CaptureCommand.run(arguments)
            case "help", "--help", "-h":
                print(usage)
                status = 0
            default: throw CLIError.usage("unknown command '\(command)'\n\(usage)")
            }
            exit(status)
        } catch let error as CLIError {
            error.report()
            exit(error.exitCode)
        } catch let error as ModelError {
            CLIError(code: "models_missing", message: error.description).report()
            exit(2)
        } catch {
            CLIError(code: "internal", message: String(describing: error)).report()
            exit(2)
        }
    }
}
