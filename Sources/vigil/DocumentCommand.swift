import Foundation
import VigilCore
import VigilDocument
import VigilFace

/// `vigil document IMAGE`: reads an identity document's machine-readable zone; exit 0 read,
/// every check holding and not expired, 1 read but a check fails or expired, or unreadable,
/// 2 bad input.
enum DocumentCommand {
    static let usage = "vigil document IMAGE    (an upright photo or scan of the page with the machine-readable zone)"

    /// The result, with the lines as read and the least margin of a character over the next best.
    struct Report: Encodable {
        let document: DocumentResult
        let lines: [String]?
        let leastMargin: Double?
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, valued: [])
        guard args.positionals.count == 1 else { throw CLIError.usage("usage: \(usage)") }
        let image = try ImageLoader.load(args.positionals[0], maxPixels: 8_400_000)
        let reader: DocumentReader
        do {
            reader = try DocumentReader()
        } catch {
            throw CLIError(code: "font_unavailable", message: error.description)
        }
        let today = MRZDate.today
        let reading = reader.read(PageImage(rgb: image.rgb, width: image.width, height: image.height), today: today)
        let result = DocumentResult(reading, today: today)
        var lines: [String]?, margin: Double?
        if case .read(let mrz, let least) = reading {
            lines = mrz.lines
            margin = (least * 1000).rounded() / 1000
        }
        try printJSON(Report(document: result, lines: lines, leastMargin: margin))
        return result.checks.valid ? 0 : 1
    }
}
