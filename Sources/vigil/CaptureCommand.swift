import Foundation
import Synchronization
import VigilFace
import VigilSDK
import VigilSynth
import VigilSynthCapture

/// `vigil capture`: the headless capture host as a command. Prints each state of the stream as
/// a JSON line; exit 0 passed, 1 failed or cancelled, 2 error.
enum CaptureCommand {
    static let usage = """
    usage: vigil capture --server URL --session-id ID --token T [--no-security] [--document JPEG]
                         (--frames SESSION_DIR | --y4m FILE | --synthetic SPECIES --photo FILE [--seed N])
    --document: a photo of the identity document, sent first when the session's policy asks for one
    synthetic species (rendered live, following the challenges and colours): live, photoPrint, photoTilted, photoBent, screenReplay, videoLoop
    """

    static func run(_ raw: [String]) throws -> Int32 {
        let arguments = try Arguments(raw, valued: ["server", "session-id", "token", "frames", "y4m", "synthetic", "photo", "seed", "document"],
                                      switches: ["no-security"])
        guard let server = arguments.value("server").flatMap(URL.init(string:)), let id = arguments.value("session-id"),
              let token = arguments.value("token"), arguments.positionals.isEmpty else { throw CLIError.usage(usage) }
        let source: any FrameSource
        switch (arguments.value("frames"), arguments.value("y4m"), arguments.value("synthetic")) {
        case (let dir?, nil, nil):
            do { source = try JPEGFolderSource(directory: URL(fileURLWithPath: dir)) } catch { throw CLIError(code: "invalid_session", message: "\(error)") }
        case (nil, let file?, nil): source = try Y4MFrameSource(url: URL(fileURLWithPath: file))
        case (nil, nil, let name?): source = try synthetic(name, arguments)
        default: throw CLIError.usage("give exactly one of --frames, --y4m or --synthetic\n\(usage)")
        }
        var document: [UInt8]?
        if let path = arguments.value("document") {
            guard let data = FileManager.default.contents(atPath: path) else { throw CLIError(code: "bad_document", message: "\(path): cannot be read") }
            guard data.starts(with: [0xFF, 0xD8, 0xFF]) else { throw CLIError(code: "bad_document", message: "\(path): not a JPEG") }
            document = [UInt8](data)
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
            var host = HeadlessCaptureHost { box.source }
            host.document = document
            for await state in client.startLivenessCheck(host: host, sessionId: id, sessionToken: token) {
                switch state {
                case .loading: line(["state": "loading"])
                case .success(let result):
                    var fields: [String: Any] = ["state": "success", "outcome": result.outcome, "feedback": result.feedback, "signedResult": result.signedResult]
                    if let document = result.document, let data = try? JSONEncoder().encode(document) {
                        fields["document"] = try? JSONSerialization.jsonObject(with: data)
                    }
                    line(fields)
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

    /// The synthetic subject made from `--photo`, in front of the camera at camera pace.
    private static func synthetic(_ name: String, _ arguments: Arguments) throws -> any FrameSource {
        guard let photo = arguments.value("photo") else { throw CLIError.usage("--synthetic needs --photo FILE\n\(usage)") }
        guard let species = Species(rawValue: name) else { throw CLIError.usage("unknown species '\(name)'\n\(usage)") }
        let rig = try SynthCommand.rig(photo, analyzer: try FaceAnalyzer(models: try FaceModels()))
        guard let source = SyntheticFrameSource(species: species, rig: rig, seed: try SynthCommand.seed(arguments)) else {
            throw CLIError.usage("\(name) tampers with the feed and cannot be captured live\n\(usage)")
        }
        return source
    }

    /// A source handed to the host's factory; used by that one capture only.
    private struct SourceBox: @unchecked Sendable { let source: any FrameSource }

    private static func line(_ object: [String: Any]) {
        if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) {
            FileHandle.standardOutput.write(data + Data([0x0A]))   // unbuffered: a reader sees each state at once
        }
    }
}
