import Foundation
import VigilDocument
import VigilFace

/// `vigil document IMAGE`: reads an identity document's machine-readable zone; exit 0 read,
/// every check holding and not expired, 1 read but a check fails or expired, or unreadable,
/// 2 bad input.
enum DocumentCommand {
    static let usage = "vigil document IMAGE    (an upright photo or scan of the page with the machine-readable zone)"

    struct Report: Encodable {
        struct Checks: Encodable {
            let checkDigits: Bool, dates: Bool, fields: Bool, expired: Bool, readable: Bool
        }
        let readable: Bool
        let reason: String?
        let type: String?, documentCode: String?, issuingState: String?, documentNumber: String?, surname: String?, givenNames: String?
        let nationality: String?, dateOfBirth: String?, sex: String?, expiryDate: String?, optionalData: String?
        let checks: Checks?
        let lines: [String]?
        /// The smallest margin of a character's template over the next best one.
        let leastMargin: Double?
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, valued: [])
        guard args.positionals.count == 1 else { throw CLIError.usage("usage: \(usage)") }
        let image = try ImageLoader.load(args.positionals[0], maxPixels: 8_400_000)
        let font: OCRBFont
        do {
            font = try OCRBFont(pixelHeight: 40)
        } catch {
            throw CLIError(code: "font_unavailable", message: error.description)
        }
        let now = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date())
        let today = MRZDate(year: now.year ?? 2026, month: now.month ?? 1, day: now.day ?? 1)
        switch DocumentReader(font: font).read(GrayImage(rgb: image.rgb, width: image.width, height: image.height), today: today) {
        case .unreadable(let reason):
            try printJSON(Report(readable: false, reason: reason, type: nil, documentCode: nil, issuingState: nil, documentNumber: nil, surname: nil,
                                 givenNames: nil, nationality: nil, dateOfBirth: nil, sex: nil, expiryDate: nil, optionalData: nil, checks: nil,
                                 lines: nil, leastMargin: nil))
            return 1
        case .read(let mrz, let margin):
            let checks = Report.Checks(checkDigits: mrz.checks.checkDigits, dates: mrz.checks.dates, fields: mrz.checks.fields,
                                       expired: mrz.isExpired(on: today), readable: true)
            try printJSON(Report(readable: true, reason: nil, type: mrz.format.rawValue.uppercased(), documentCode: mrz.documentCode,
                                 issuingState: mrz.issuingState, documentNumber: mrz.documentNumber, surname: mrz.surname, givenNames: mrz.givenNames,
                                 nationality: mrz.nationality, dateOfBirth: mrz.dateOfBirth?.description, sex: mrz.sex,
                                 expiryDate: mrz.expiryDate?.description, optionalData: mrz.optionalData, checks: checks, lines: mrz.lines,
                                 leastMargin: (margin * 1000).rounded() / 1000))
            return mrz.checks.all && !checks.expired ? 0 : 1
        }
    }
}
