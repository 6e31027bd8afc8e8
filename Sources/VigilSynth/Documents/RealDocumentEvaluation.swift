import Foundation
import VigilCore
import VigilDocument
import VigilFace

/// Real photos and scans of documents read as the server reads them (`vigil synth documents
/// --real DIR`, `scripts/eval-documents --real DIR`): each annotated image of a folder through
/// `DocumentReader`, from its bytes, its reading compared with the zone a person read on it by
/// eye (`eval/documents-real.json`).
public struct RealDocumentEvaluation: Sendable {
    /// What a person read on one image.
    public struct Truth: Codable, Sendable {
        /// The image's file name in the folder.
        public let file: String
        /// TD1, TD2, TD3, MRVA or MRVB.
        public let format: String
        /// The zone's lines as printed.
        public let lines: [String]
        /// Whether the check digits printed hold: on some specimens they do not, and then no
        /// valid reading of the image exists.
        public let checkDigitsHold: Bool
        /// What the annotator noticed.
        public let notes: String?
    }

    /// An annotation file.
    public struct Annotations: Codable, Sendable {
        /// Who read the zones, and how.
        public let annotator: String?
        /// Where the images come from, under which terms.
        public let source: String?
        /// One entry per image.
        public let images: [Truth]
    }

    /// What one image gave.
    public struct Outcome: Sendable {
        /// Valid means the zone parses, every check digit holds and the dates are real dates (the
        /// server's `valid` also asks the field rules and that the document has not expired,
        /// which specimens have).
        public enum Kind: String, Sendable {
            /// Valid, and every character as printed.
            case right
            /// Valid, but not what is printed: the failure that must never happen.
            case wrongButValid = "wrong but valid"
            /// A zone parsed whose checks fail.
            case readNotValid = "read, not valid"
            /// No zone read; the guidance says why.
            case unreadable
        }

        /// The image's file name.
        public let file: String
        /// How it went.
        public let kind: Kind
        /// What the person was told, when nothing valid was read.
        public let guidance: DocumentGuidance?
        /// Processor milliseconds from the file's bytes to the reading, one thread.
        public let cpuMs: Double
    }

    /// One outcome per annotated image, in the annotations' order.
    public let outcomes: [Outcome]
    /// Annotated images whose printed check digits hold: those a reader can read validly.
    public let readable: Int

    /// Reads every image `annotations` names in `directory`.
    public static func run(directory: URL, annotations: Annotations, reader: DocumentReader, today: MRZDate) throws -> RealDocumentEvaluation {
        var outcomes: [Outcome] = []
        for truth in annotations.images {
            let bytes = try Data(contentsOf: directory.appendingPathComponent(truth.file))
            let started = ProcessorClock.threadMs()
            let reading: DocumentReader.Reading
            do {
                let image = try Image(encoded: bytes, maxPixels: DocumentReader.maxPixels)
                reading = reader.read(PageImage(rgb: image.rgb, width: image.width, height: image.height), today: today)
            } catch {
                reading = .unreadable(.unreadable, reason: error.description, zone: nil)
            }
            let ms = ProcessorClock.threadMs() - started
            switch reading {
            case .read(let mrz, _, _, _) where mrz.checks.checkDigits && mrz.checks.dates:
                outcomes.append(Outcome(file: truth.file, kind: mrz.lines == truth.lines ? .right : .wrongButValid, guidance: nil, cpuMs: ms))
            case .read:
                outcomes.append(Outcome(file: truth.file, kind: .readNotValid, guidance: nil, cpuMs: ms))
            case .unreadable(let guidance, _, _):
                outcomes.append(Outcome(file: truth.file, kind: .unreadable, guidance: guidance, cpuMs: ms))
            }
        }
        return RealDocumentEvaluation(outcomes: outcomes, readable: annotations.images.count { $0.checkDigitsHold })
    }

    /// The summary, then a line per image.
    public func table() -> String {
        let count = { (kind: Outcome.Kind) in outcomes.count { $0.kind == kind } }
        let valid = count(.right) + count(.wrongButValid)
        var out = "valid reads: \(valid) of \(outcomes.count) (\(readable) have check digits that hold as printed); right \(count(.right)),"
            + " wrong but valid \(count(.wrongButValid)), read but not valid \(count(.readNotValid)), unreadable \(count(.unreadable))\n"
        var guidance: [String: Int] = [:]
        for outcome in outcomes where outcome.kind == .unreadable { guidance[outcome.guidance?.rawValue ?? "-", default: 0] += 1 }
        out += "guidance on the images not read: " + guidance.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.key) \($0.value)" }
            .joined(separator: ", ") + "\n"
        let ms = outcomes.map(\.cpuMs).sorted()
        if !ms.isEmpty {
            out += String(format: "processor ms per image, one thread, from its bytes: median %.1f, 95th percentile %.1f, total %.0f\n",
                          ms[ms.count / 2], ms[min(ms.count - 1, ms.count * 95 / 100)], ms.reduce(0, +))
        }
        for outcome in outcomes {
            out += outcome.file.padding(toLength: 24, withPad: " ", startingAt: 0) + outcome.kind.rawValue.padding(toLength: 17, withPad: " ", startingAt: 0)
                + (outcome.guidance?.rawValue ?? "").padding(toLength: 13, withPad: " ", startingAt: 0) + String(format: "%6.1f ms\n", outcome.cpuMs)
        }
        return out
    }
}
