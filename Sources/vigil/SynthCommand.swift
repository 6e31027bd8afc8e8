import Foundation
import VigilCore
import VigilDocument
import VigilFace
import VigilLiveness
import VigilSynth

/// `vigil synth`: synthetic sessions from real photos, for testing the engine (docs/synth.md).
enum SynthCommand {
    static let usage = """
    usage: vigil synth session --photo FILE [--other FILE] [--species live] [--risk medium] [--seed N] --out DIR
           vigil synth documents [--photos DIR] [--count 30] [--seed N] [--out DIR] | --real DIR [--truth eval/documents-real.json]
           vigil synth real --clips DIR --annotations FILE [--rates 5,10,15] [--repeats 2] [--workers 2] [--seed N] [--keep-failures DIR]
           vigil synth eval [--photos DIR] [--levels free,low,medium,high] [--species A,B] [--matrix | --light-sweep] [--per-species 50] [--live 200] [--workers 2] [--seed N] [--keep-failures DIR]
    species: \(Species.allCases.map(\.rawValue).joined(separator: ", "))
    """

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let sub = arguments.first else { throw CLIError.usage(usage) }
        let rest = Array(arguments.dropFirst())
        switch sub {
        case "session": return try session(rest)
        case "eval": return try evaluate(rest)
        case "real": return try real(rest)
        case "documents": return try documents(rest)
        default: throw CLIError.usage("unknown synth command '\(sub)'\n\(usage)")
        }
    }

    /// Real images of documents, each read as the server reads it and compared with the zone a
    /// person read on it (`eval/documents-real.json`); exits 1 on a wrong reading that is valid.
    static func realDocuments(_ folder: String, truth: String) throws -> Int32 {
        let annotations: RealDocumentEvaluation.Annotations
        do {
            annotations = try JSONDecoder().decode(RealDocumentEvaluation.Annotations.self, from: Data(contentsOf: URL(fileURLWithPath: truth)))
        } catch {
            throw CLIError(code: "bad_annotations", message: "\(truth): \(error)")
        }
        let reader: DocumentReader
        do { reader = try DocumentReader() } catch { throw CLIError(code: "font_unavailable", message: error.description) }
        let evaluation: RealDocumentEvaluation
        do {
            evaluation = try RealDocumentEvaluation.run(directory: URL(fileURLWithPath: folder), annotations: annotations, reader: reader, today: MRZDate.today)
        } catch {
            throw CLIError(code: "bad_folder", message: "\(folder): \(error.localizedDescription)")
        }
        print("real documents: \(annotations.images.count) images in \(folder), as read by eye in \(truth)")
        print(evaluation.table(), terminator: "")
        return evaluation.outcomes.contains { $0.kind == .wrongButValid } ? 1 : 0
    }

    /// The document evaluation: generated pages of the three formats under each condition.
    static func documents(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, valued: ["photos", "count", "seed", "out", "real", "truth"])
        if let folder = args.value("real") { return try realDocuments(folder, truth: args.value("truth") ?? "eval/documents-real.json") }
        let count = Int(try args.double("count", default: 30, range: 3...10_000))
        // --out: every photo read, and manifest.jsonl naming its condition and zone. The conditions'
        // photos are drawn and read in grey (`colour: false`), written as JPEGs of quality 95; the
        // signs' photos are in colour, written as the very JPEG bytes the evaluation read, with
        // the signs it measured on them.
        var manifest: FileHandle?
        if let out = args.value("out") {
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            FileManager.default.createFile(atPath: out + "/manifest.jsonl", contents: nil)
            manifest = FileHandle(forWritingAtPath: out + "/manifest.jsonl")
        }
        defer { try? manifest?.close() }
        let directory = URL(fileURLWithPath: args.value("photos") ?? ProcessInfo.processInfo.environment["VIGIL_FIXTURES"]
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/vigil/fixtures").path)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.filter { $0.hasSuffix(".jpg") }.sorted() ?? []
        let portraits = names.compactMap { try? ImageLoader.load(directory.appendingPathComponent($0).path) }
        guard !portraits.isEmpty else { throw CLIError(code: "bad_photos", message: "\(directory.path): no JPEG portraits") }
        let reader: DocumentReader
        do { reader = try DocumentReader() } catch { throw CLIError(code: "font_unavailable", message: error.description) }
        print("documents: \(count) a condition (TD1, TD2, TD3 in turn), seed \(try seed(args)), portraits from \(directory.path)")
        print("condition                              read exactly   unreadable   wrong but valid   CPU ms p50 / p95    page found   guidance when not read")
        var misreads: [String] = []
        let rows = try DocumentEvaluation.run(count: count, seed: try seed(args), portraits: portraits, reader: reader,
                                              today: MRZDate.today, misread: { misreads.append("printed \($0), read \($1)") },
                                              keep: manifest.map { handle in { condition, index, photo, zone in
            let name = condition.name.replacingOccurrences(of: " ", with: "-").replacingOccurrences(of: ",", with: "") + "-\(index).jpg"
            let jpeg = try photo.image().jpegData(quality: 95)
            try Data(jpeg).write(to: URL(fileURLWithPath: args.value("out")!).appendingPathComponent(name))
            let line = try JSONSerialization.data(withJSONObject: ["file": name, "condition": condition.name, "zone": zone, "colour": false], options: .sortedKeys)
            handle.write(line + Data([0x0A]))
        } }) { row in
            let share = String(format: "%5.1f%%", 100 * Double(row.exact) / Double(max(1, row.documents)))
            print(row.condition.padding(toLength: 38, withPad: " ", startingAt: 0) + " \(share) (\(row.exact)/\(row.documents))"
                  + "   \(row.unreadable)".padding(toLength: 13, withPad: " ", startingAt: 0)
                  + "\(row.wrongButValid)".padding(toLength: 18, withPad: " ", startingAt: 0)
                  + String(format: "%.0f / %.0f", row.medianMs, row.p95Ms).padding(toLength: 20, withPad: " ", startingAt: 0)
                  + (row.pagesOnATable > 0 ? "\(row.pagesLocated)/\(row.pagesOnATable)" : "-").padding(toLength: 13, withPad: " ", startingAt: 0)
                  + row.guidance.sorted { $0.value > $1.value }.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", "))
        }
        for line in misreads.prefix(20) { print("wrong but valid: " + line) }
        // Signs of a copy: each document in colour, as itself, photocopied and on a screen.
        print("signs of a copy (2 MP, JPEG 85; informational):")
        let keepSigns = manifest.map { handle in { (presentation: DocumentPresentation, index: Int, jpeg: [UInt8], _: DocumentReader.Reading,
                                                    signs: DocumentResult.Signs?, zone: [String]) throws in
            let name = "signs-\(presentation.rawValue)-\(index).jpg"
            try Data(jpeg).write(to: URL(fileURLWithPath: args.value("out")!).appendingPathComponent(name))
            var entry: [String: Any] = ["file": name, "condition": "signs of a copy: \(presentation.rawValue)", "zone": zone, "colour": true]
            if let signs { entry["signs"] = ["screen": signs.screen, "photocopy": signs.photocopy, "screenPattern": signs.screenPattern, "colourfulness": signs.colourfulness] }
            handle.write(try JSONSerialization.data(withJSONObject: entry, options: .sortedKeys) + Data([0x0A]))
        } }
        for row in try DocumentEvaluation.signs(count: count, seed: try seed(args), portraits: portraits, reader: reader, today: MRZDate.today,
                                                keep: keepSigns) {
            func range(_ r: ClosedRange<Double>?) -> String { r.map { String(format: "%.1f-%.1f", $0.lowerBound, $0.upperBound) } ?? "-" }
            print("  \(row.presentation.rawValue): \(row.exact)/\(row.documents) read exactly; of those with a zone found, said screen \(row.screen), photocopy \(row.photocopy);"
                  + " screen pattern \(range(row.screenPattern)), colourfulness \(range(row.colourfulness))")
        }
        // The portrait against the live face, for every pair of photos.
        let photos = names.compactMap { name -> (name: String, person: String, image: Image)? in
            (try? ImageLoader.load(directory.appendingPathComponent(name).path)).map { (name, String(name.prefix { $0.isLetter }), $0) }
        }
        let pairs = try PortraitMatchEvaluation.run(photos: photos, reader: reader, analyzer: try FaceAnalyzer(models: try FaceModels()))
        func report(_ label: String, _ chosen: [PortraitMatchEvaluation.Pair]) {
            let distances = chosen.compactMap(\.distance).sorted()
            let spread = distances.isEmpty ? "-" : String(format: "min %.3f, median %.3f, max %.3f", distances.first!, distances[distances.count / 2], distances.last!)
            print("\(label): \(chosen.count) pairs, \(chosen.filter(\.matched).count) matched, \(chosen.filter { $0.distance == nil }.count) without a face; distance \(spread)")
        }
        print("portrait against live face (threshold \(FaceMatcher.defaultThreshold)):")
        report("  genuine, same photo", pairs.filter { $0.genuine && $0.samePhoto })
        report("  genuine, another photo", pairs.filter { $0.genuine && !$0.samePhoto })
        report("  impostor", pairs.filter { !$0.genuine })
        let portraitsWrong = pairs.filter { $0.genuine != $0.matched }
        for pair in portraitsWrong.prefix(10) { print("  wrong: document \(pair.document), selfie \(pair.selfie), distance \(pair.distance.map { String(format: "%.3f", $0) } ?? "no face")") }
        return rows.allSatisfy { $0.wrongButValid == 0 } && portraitsWrong.isEmpty ? 0 : 1
    }

    static func seed(_ args: Arguments) throws -> UInt64 {
        guard let text = args.value("seed") else { return 1 }
        guard let value = UInt64(text) else { throw CLIError.usage("--seed must be a non-negative integer") }
        return value
    }

    static func level(_ text: String) throws -> RiskLevel {
        guard let level = RiskLevel(rawValue: text) else {
            throw CLIError.usage("unknown risk level '\(text)' (\(RiskLevel.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return level
    }

    static func rig(_ path: String, analyzer: FaceAnalyzer) throws -> FaceRig {
        let photo: Image
        do {
            photo = try Image(contentsOf: URL(fileURLWithPath: path))
        } catch let error as ImageError {
            throw CLIError(code: "bad_image", message: "\(path): \(error.description)")
        } catch {
            throw CLIError(code: "bad_image", message: "\(path) cannot be read")
        }
        do {
            return try FaceRig(photo: photo, name: path, analyzer: analyzer)
        } catch {
            throw CLIError(code: "bad_image", message: error.description)
        }
    }

    /// Writes one session directory and prints what the engine decided on it.
    static func session(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, valued: ["photo", "other", "species", "risk", "seed", "out"])
        guard let photo = args.value("photo"), let out = args.value("out"), args.positionals.isEmpty else { throw CLIError.usage(usage) }
        guard let species = Species(rawValue: args.value("species") ?? "live") else {
            throw CLIError.usage("unknown species '\(args.value("species")!)'\n\(usage)")
        }
        let risk = try level(args.value("risk") ?? "medium")
        let analyzer = try FaceAnalyzer(models: try FaceModels())
        let subject = try rig(photo, analyzer: analyzer)
        let other = try args.value("other").map { try rig($0, analyzer: analyzer) } ?? subject
        if species == .faceSwap, args.value("other") == nil { throw CLIError.usage("faceSwap needs --other FILE (another person)") }
        let result = species.simulate(rig: subject, other: other, policy: .preset(risk), analyzer: analyzer, seed: try seed(args))
        do {
            try result.write(to: URL(fileURLWithPath: out, isDirectory: true))
        } catch {
            throw CLIError(code: "write_failed", message: "\(out): \(error.localizedDescription)")
        }
        struct Summary: Encodable {
            let directory: String, species: Species, riskLevel: RiskLevel, frames: Int, outcome: LivenessDecision.Outcome
            let feedback: [FeedbackCode]
        }
        try printJSON(Summary(directory: out, species: species, riskLevel: risk, frames: result.frames.count,
                              outcome: result.decision.outcome, feedback: result.decision.feedback))
        return 0
    }

    /// Attack and live sessions at each level, tallied (what scripts/eval-liveness prints).
    /// The real-face evaluation: annotated clips of real people, each motion answering its prompt.
    static func real(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, valued: ["clips", "annotations", "rates", "repeats", "workers", "seed", "keep-failures"])
        guard args.positionals.isEmpty, let clipsPath = args.value("clips"), let annotationsPath = args.value("annotations") else {
            throw CLIError.usage(usage)
        }
        let rates = try (args.value("rates") ?? "5,10,15").split(separator: ",").map { text -> Int in
            guard let fps = Int(text), (1...30).contains(fps) else { throw CLIError.usage("--rates: frame rates of 1 to 30, got '\(text)'\n\(usage)") }
            return fps
        }
        let repeats = Int(try args.double("repeats", default: 2, range: 1...100))
        let workers = Int(try args.double("workers", default: Double(max(1, ProcessInfo.processInfo.activeProcessorCount)), range: 1...64))
        let annotations: [ClipAnnotation]
        do {
            annotations = try JSONDecoder().decode([ClipAnnotation].self, from: Data(contentsOf: URL(fileURLWithPath: annotationsPath)))
        } catch {
            throw CLIError(code: "bad_annotations", message: "\(annotationsPath): \(error)")
        }
        let folder = URL(fileURLWithPath: clipsPath, isDirectory: true)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.sorted() ?? []
        let clips = names.compactMap { try? RecordedClip(directory: folder.appendingPathComponent($0, isDirectory: true)) }
        guard !clips.isEmpty else { throw CLIError(code: "bad_clips", message: "\(folder.path): no clip folders (clip.json and frames)") }
        let started = Date()
        let evaluation = try RealFaceEvaluation.run(clips: clips, annotations: annotations, rates: rates, repeats: repeats, models: try FaceModels(),
                                                    workers: workers, seed: try seed(args),
                                                    keepFailures: args.value("keep-failures").map { URL(fileURLWithPath: $0, isDirectory: true) })
        print("real faces: \(Set(evaluation.trials.map(\.clip)).count) clips, \(evaluation.trials.count) sessions, one motion each, BPCER (rejected/sessions)")
        print(evaluation.table(), terminator: "")
        print(String(format: "%d sessions in %.0f s with %d workers", evaluation.trials.count, Date().timeIntervalSince(started), workers))
        return 0
    }

    static func evaluate(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, valued: ["photos", "levels", "species", "per-species", "live", "workers", "seed", "keep-failures"],
                                 switches: ["matrix", "light-sweep"])
        guard args.positionals.isEmpty else { throw CLIError.usage(usage) }
        let levels = try (args.value("levels") ?? "free,low,medium,high").split(separator: ",").map { try level(String($0)) }
        let species = try args.value("species").map { list in
            try list.split(separator: ",").map { name in
                guard let kind = Species(rawValue: String(name)) else { throw CLIError.usage("unknown species '\(name)'\n\(usage)") }
                return kind
            }
        } ?? Species.allCases
        let perSpecies = Int(try args.double("per-species", default: 50, range: 1...10_000))
        let live = Int(try args.double("live", default: 200, range: 1...100_000))
        let workers = Int(try args.double("workers", default: Double(max(1, ProcessInfo.processInfo.activeProcessorCount)), range: 1...64))
        let photos = URL(fileURLWithPath: args.value("photos") ?? ProcessInfo.processInfo.environment["VIGIL_FIXTURES"]
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/vigil/fixtures").path)
        let models = try FaceModels()
        let library: SubjectLibrary
        do {
            library = try SubjectLibrary(directory: photos, analyzer: try FaceAnalyzer(models: models))
        } catch {
            throw CLIError(code: "bad_photos", message: "\(photos.path): no usable face photos (\(error))")
        }
        let people = Set(library.subjects.map(\.person)).count
        FileHandle.standardError.write(Data("\(library.subjects.count) subjects from \(people) people; \(levels.count) levels\n".utf8))
        let started = Date()
        guard !(args.has("matrix") && args.has("light-sweep")) else { throw CLIError.usage("--matrix or --light-sweep, not both\n\(usage)") }
        let cameras = args.has("matrix") ? CameraConditions.matrix : args.has("light-sweep") ? CameraConditions.lightSweep : [CameraConditions()]
        let evaluation = try LivenessEvaluation.run(library: library, models: models, levels: levels, species: species, cameras: cameras,
                                                    perSpecies: perSpecies, live: live,
                                                    workers: workers, seed: try seed(args),
                                                    keepFailures: args.value("keep-failures").map { URL(fileURLWithPath: $0, isDirectory: true) }) { done, total in
            if done % 50 == 0 || done == total { FileHandle.standardError.write(Data("\(done)/\(total)\n".utf8)) }
        }
        print(evaluation.table())
        print(String(format: "%d sessions in %.0f s with %d workers", evaluation.trials.count, Date().timeIntervalSince(started), workers))
        return 0
    }
}
