import Foundation
import VigilCore
import VigilDocument
import VigilFace

/// `vigil document IMAGE`: reads an identity document's machine-readable zone; exit 0 read,
/// every check holding and not expired, 1 read but a check fails or expired, or unreadable,
/// 2 bad input.
enum DocumentCommand {
    static let usage = "vigil document IMAGE...    (photos or scans of the page with the machine-readable zone; several: one JSON line each)"

    /// The result, with the lines as read and the least margin of a character over the next best.
    struct Report: Encodable {
        let document: DocumentResult
        let lines: [String]?
        let leastMargin: Double?
        /// With several images: the file, and the processor milliseconds from its bytes to the
        /// result (one thread).
        var file: String?, cpuMs: Double?
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, valued: [])
        guard !args.positionals.isEmpty else { throw CLIError.usage("usage: \(usage)") }
        let reader: DocumentReader
        do {
            reader = try DocumentReader()
        } catch {
            throw CLIError(code: "font_unavailable", message: error.description)
        }
        let today = MRZDate.today
        var allValid = true
        for path in args.positionals {
            let started = ProcessorClock.threadMs()
            let image = try ImageLoader.load(path, maxPixels: DocumentReader.maxPixels)
            let reading = reader.read(PageImage(rgb: image.rgb, width: image.width, height: image.height), today: today)
            let ms = ProcessorClock.threadMs() - started
            let result = DocumentResult(reading, photo: image, today: today)
            var report = Report(document: result, lines: nil, leastMargin: nil)
            if case .read(let mrz, let least, _, _) = reading {
                report = Report(document: result, lines: mrz.lines, leastMargin: (least * 1000).rounded() / 1000)
            }
            if args.positionals.count > 1 {
                report.file = path
                report.cpuMs = (ms * 10).rounded() / 10
            }
            try printJSON(report)
            allValid = allValid && result.checks.valid
        }
        return allValid ? 0 : 1
    }
}