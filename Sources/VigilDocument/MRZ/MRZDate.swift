/// A date of a machine-readable zone (YYMMDD), with the century chosen as ICAO 9303 leaves to
/// the reader: a birth date is never in the future, an expiry date at most 50 years ahead.
public struct MRZDate: Sendable, Equatable, Codable, Comparable, CustomStringConvertible {
    public let year: Int, month: Int, day: Int

    /// The date `text` (6 digits) reads, nil when it is not a calendar date.
    init?(_ text: Substring, latestYear: Int) {
        guard text.utf8.count == 6, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber),
              let yy = Int(text.prefix(2)), let month = Int(text.dropFirst(2).prefix(2)), let day = Int(text.suffix(2)) else { return nil }
        let year = 2000 + yy > latestYear ? 1900 + yy : 2000 + yy
        guard (1...12).contains(month), (1...Self.days(month: month, year: year)).contains(day) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date as given, for comparisons with today.
    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    static func days(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// ISO 8601: `1974-08-12`.
    public var description: String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day))"
    }

    public static func < (a: MRZDate, b: MRZDate) -> Bool { (a.year, a.month, a.day) < (b.year, b.month, b.day) }
}
