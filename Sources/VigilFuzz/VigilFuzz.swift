import Foundation
import VigilFace

/// `vigil-fuzz`: mutated inputs through Vigil's parsers, counted (docs/reliability.md).
///
///     vigil-fuzz --fixtures DIR [--target NAME,...] [--count 100000] [--seconds 600] [--seed 1] [--from 0]
///
/// Prints one JSON line per target: inputs run, inputs the parser accepted as valid, forgeries
/// (changed signed bytes a verifier accepted), hangs (an input over 1 s, 5 s for a document read, or after which the
/// server took over 1 s to answer a health check), 5xx answers (505 apart: a request line naming
/// an HTTP version the server does not speak), inputs that got no answer (the
/// server closed the connection or waits for the rest), the slowest input, and the process's
/// peak RSS. A crash ends the process:
/// the last `started` line on stderr names the input, which `--seed S --from I --count 1` runs again.
@main
struct VigilFuzz {
    struct Report: Encodable {
        let target: String, seed: UInt64, inputs: Int, accepted: Int, forgeries: Int, hangs: Int, serverErrors: Int, versionNotSupported: Int, noAnswer: Int, slowestMs: Double, peakRSSMB: Double, seconds: Double
    }

    static func main() throws {
        var options: [String: String] = [:]
        var arguments = CommandLine.arguments.dropFirst()
        while let flag = arguments.popFirst() {
            guard flag.hasPrefix("--"), let value = arguments.popFirst() else {
                FileHandle.standardError.write(Data("usage: vigil-fuzz --fixtures DIR [--target NAME,...] [--count N] [--seconds S] [--seed N] [--from I]\n".utf8))
                exit(2)
            }
            options[String(flag.dropFirst(2))] = value
        }
        let count = Int(options["count"] ?? "") ?? 100_000
        let seconds = Double(options["seconds"] ?? "") ?? 600
        let seed = UInt64(options["seed"] ?? "") ?? 1
        let from = Int(options["from"] ?? "") ?? 0
        let fixtures = URL(fileURLWithPath: options["fixtures"] ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/vigil/fixtures").path)
        let photo = try Image(contentsOf: fixtures.appendingPathComponent("obama.jpg"))
        let frame = photo.resized(width: 640, height: 480).jpegData(quality: 85)
        let png = try Image(contentsOf: fixtures.appendingPathComponent("obama-rgba.png")).resized(width: 320, height: 240).pngData()

        let names = (options["target"] ?? "image,document,jws,webhook-signature,bridge-envelope,json-body,http-request").split(separator: ",").map(String.init)
        var server: FuzzServer?
        func shared() throws -> FuzzServer {
            if let server { return server }
            let made = try FuzzServer(frame: frame)
            server = made
            return made
        }
        for name in names {
            let target: any FuzzTarget
            switch name {
            case "image": target = ImageTarget(jpeg: frame, png: png)
            case "document": target = try DocumentTarget(png: png)
            case "jws": target = try JWSTarget()
            case "webhook-signature": target = WebhookSignatureTarget()
            case "bridge-envelope": target = BridgeEnvelopeTarget()
            case "json-body": target = JSONBodyTarget(server: try shared())
            case "http-request": target = RawRequestTarget(server: try shared())
            default:
                FileHandle.standardError.write(Data("vigil-fuzz: no target '\(name)'\n".utf8))
                exit(2)
            }
            let report = run(target, seed: seed, from: from, count: count, seconds: seconds)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        }
        server = nil
    }

    static func run(_ target: any FuzzTarget, seed: UInt64, from: Int, count: Int, seconds: Double) -> Report {
        let clock = ContinuousClock(), start = clock.now
        var accepted = 0, forgeries = 0, hangs = 0, serverErrors = 0, versions = 0, noAnswer = 0, slowest = 0.0, done = 0
        for index in from..<(from + count) {
            guard clock.now - start < .seconds(seconds) else { break }
            if index % 1000 == 0 { FileHandle.standardError.write(Data("started \(target.name) seed \(seed) input \(index)\n".utf8)) }
            let began = clock.now
            let outcome = target.run(index: index, seed: seed)
            let ms = (clock.now - began) / .milliseconds(1)
            slowest = max(slowest, ms)
            if outcome == .stalled || (ms > target.hangMs && outcome != .noAnswer) {
                hangs += 1
                FileHandle.standardError.write(Data("hang: \(target.name) seed \(seed) input \(index): \(Int(ms)) ms\n".utf8))
            }
            switch outcome {
            case .handled: break
            case .accepted: accepted += 1
            case .forged:
                forgeries += 1
                FileHandle.standardError.write(Data("forgery: \(target.name) seed \(seed) input \(index)\n".utf8))
            case .serverError(let status):
                serverErrors += 1
                FileHandle.standardError.write(Data("\(status): \(target.name) seed \(seed) input \(index)\n".utf8))
            case .noAnswer: noAnswer += 1
            case .versionNotSupported: versions += 1
            case .stalled: break
            }
            done += 1
        }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Report(target: target.name, seed: seed, inputs: done, accepted: accepted, forgeries: forgeries, hangs: hangs, serverErrors: serverErrors, versionNotSupported: versions, noAnswer: noAnswer,
                      slowestMs: (slowest * 10).rounded() / 10, peakRSSMB: Double(usage.ru_maxrss) / 1024,
                      seconds: ((clock.now - start) / .milliseconds(100)).rounded() / 10)
    }
}
