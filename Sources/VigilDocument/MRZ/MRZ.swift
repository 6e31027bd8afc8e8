import Foundation

/// A machine-readable zone as read: its fields exactly as printed (fillers removed) and whether
/// each check holds. A reading whose check digits fail is reported as such, never corrected.
public struct MRZ: Sendable, Equatable {
    public let format: MRZFormat
    /// `P` (passport), `I`, `ID`, `AC`, `V`... as printed, fillers removed.
    public let documentCode: String
    /// Three-letter codes (ICAO 9303 part 3), fillers removed (`D` for Germany).
    public let issuingState: String, nationality: String
    public let documentNumber: String
    public let surname: String, givenNames: String
    /// Nil where the zone's date is not a calendar date (`checks.dates` is then false).
    public let dateOfBirth: MRZDate?, expiryDate: MRZDate?
    /// `M`, `F` or `X`; nil for unspecified (`<`).
    public let sex: String?
    /// The optional data elements, joined (TD1 has two), fillers removed.
    public let optionalData: String
    public let checks: Checks
    /// The zone's lines as read.
    public let lines: [String]

    /// Each check of the zone.
    public struct Checks: Sendable, Equatable {
        public let documentNumber: Bool, dateOfBirth: Bool, expiryDate: Bool
        /// TD3's personal-number check digit (true where the format has none).
        public let optionalData: Bool
        public let composite: Bool
        /// Both dates are calendar dates.
        public let dates: Bool
        /// Every field holds only the characters its kind allows, fillers only where they may be.
        public let fields: Bool

        /// Every check digit holds.
        public var checkDigits: Bool { documentNumber && dateOfBirth && expiryDate && optionalData && composite }
        /// Check digits, dates and fields all hold.
        public var all: Bool { checkDigits && dates && fields }
    }

    /// Whether the document had expired on `today`.
    public func isExpired(on today: MRZDate) -> Bool { expiryDate.map { $0 < today } ?? true }

    /// Reads `lines` (their format by their shape). `today` sets the dates' centuries.
    public init(lines: [String], today: MRZDate) throws(MRZError) {
        guard let format = MRZFormat(lines: lines) else { throw .unrecognizedFormat(lineLengths: lines.map(\.utf8.count)) }
        for (i, line) in lines.enumerated() where !line.utf8.allSatisfy(Self.isMRZCharacter) { throw .invalidCharacters(line: i + 1) }
        guard !lines.joined().utf8.allSatisfy({ $0 == UInt8(ascii: "<") }), lines[0].first != "<" else { throw .empty }
        let rows = lines.map { Array($0.utf8) }
        switch format {
        case .td3: self.init(td3: rows, today: today)
        case .td2: self.init(td2: rows, today: today)
        case .td1: self.init(td1: rows, today: today)
        case .mrva, .mrvb: self.init(visa: rows, format: format, today: today)
        }
    }

    private init(td3 r: [[UInt8]], today: MRZDate) {
        let l1 = r[0], l2 = r[1]
        let optional = l2[28..<42], optionalDigit = l2[42]
        // The personal number's check digit may be a filler when the number is all fillers.
        let optionalHolds = optionalDigit == UInt8(ascii: "<") ? optional.allSatisfy { $0 == UInt8(ascii: "<") }
                                                               : Self.holds(optional, optionalDigit)
        self.init(format: .td3, lines: r, code: l1[0..<2], state: l1[2..<5], name: l1[5..<44],
                  number: (l2[0..<9], l2[9]), nationality: l2[10..<13], birth: (l2[13..<19], l2[19]), sex: l2[20],
                  expiry: (l2[21..<27], l2[27]), optional: [optional], optionalHolds: optionalHolds,
                  composite: (Array(l2[0..<10] + l2[13..<20] + l2[21..<43]), l2[43]), today: today)
    }

    private init(td2 r: [[UInt8]], today: MRZDate) {
        let l1 = r[0], l2 = r[1]
        self.init(format: .td2, lines: r, code: l1[0..<2], state: l1[2..<5], name: l1[5..<36],
                  number: (l2[0..<9], l2[9]), nationality: l2[10..<13], birth: (l2[13..<19], l2[19]), sex: l2[20],
                  expiry: (l2[21..<27], l2[27]), optional: [l2[28..<35]], optionalHolds: true,
                  composite: (Array(l2[0..<10] + l2[13..<20] + l2[21..<35]), l2[35]), today: today)
    }

    /// ICAO 9303 part 7: the visa's number, not the passport's, and no composite check digit.
    private init(visa r: [[UInt8]], format: MRZFormat, today: MRZDate) {
        let l1 = r[0], l2 = r[1], length = format.lineLength
        self.init(format: format, lines: r, code: l1[0..<2], state: l1[2..<5], name: l1[5..<length],
                  number: (l2[0..<9], l2[9]), nationality: l2[10..<13], birth: (l2[13..<19], l2[19]), sex: l2[20],
                  expiry: (l2[21..<27], l2[27]), optional: [l2[28..<length]], optionalHolds: true, composite: nil, today: today)
    }

    private init(td1 r: [[UInt8]], today: MRZDate) {
        let l1 = r[0], l2 = r[1], l3 = r[2]
        self.init(format: .td1, lines: r, code: l1[0..<2], state: l1[2..<5], name: l3[0..<30],
                  number: (l1[5..<14], l1[14]), nationality: l2[15..<18], birth: (l2[0..<6], l2[6]), sex: l2[7],
                  expiry: (l2[8..<14], l2[14]), optional: [l1[15..<30], l2[18..<29]], optionalHolds: true,
                  composite: (Array(l1[5..<30] + l2[0..<7] + l2[8..<15] + l2[18..<29]), l2[29]), today: today)
    }

    private init(format: MRZFormat, lines r: [[UInt8]], code: ArraySlice<UInt8>, state: ArraySlice<UInt8>, name: ArraySlice<UInt8>,
                 number: (ArraySlice<UInt8>, UInt8), nationality: ArraySlice<UInt8>, birth: (ArraySlice<UInt8>, UInt8), sex: UInt8,
                 expiry: (ArraySlice<UInt8>, UInt8), optional: [ArraySlice<UInt8>], optionalHolds: Bool,
                 composite: ([UInt8], UInt8)?, today: MRZDate) {
        let filler = UInt8(ascii: "<")
        var optional = optional
        // A document number over 9 characters (TD1, TD2): a filler in its check digit's place,
        // the rest at the start of the first optional field, then its check digit and a filler.
        var numberBytes = Array(number.0), numberDigit = number.1
        if format == .td1 || format == .td2, numberDigit == filler, let end = optional[0].firstIndex(of: filler), end > optional[0].startIndex {
            let extension_ = optional[0][optional[0].startIndex..<end]
            numberBytes += extension_.dropLast()
            numberDigit = extension_.last ?? filler
            optional[0] = optional[0][end...]
        }
        let birthDate = MRZDate(Self.text(birth.0)[...], latestYear: today.year)
        let expiryDate = MRZDate(Self.text(expiry.0)[...], latestYear: today.year + 50)
        self.format = format
        self.lines = r.map { String(decoding: $0, as: UTF8.self) }
        documentCode = Self.trimmed(code)
        issuingState = Self.trimmed(state)
        self.nationality = Self.trimmed(nationality)
        documentNumber = Self.trimmed(numberBytes[...])
        (surname, givenNames) = Self.names(name)
        dateOfBirth = birthDate
        self.expiryDate = expiryDate
        self.sex = sex == filler ? nil : String(decoding: [sex], as: UTF8.self)
        optionalData = optional.map { Self.trimmed($0) }.filter { !$0.isEmpty }.joined(separator: "<")
        let letters = { (b: UInt8) in (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b) }
        let digits = { (b: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) }
        let fields = Self.letterCode(state) && Self.letterCode(nationality)
            && Self.documentKinds.contains(code.first!) && (letters(code.last!) || code.last! == filler)
            && Self.fillersOnlyAtEnd(numberBytes[...]) && numberBytes.first.map { $0 != filler } == true
            && birth.0.allSatisfy(digits) && expiry.0.allSatisfy(digits)
            && [UInt8(ascii: "M"), UInt8(ascii: "F"), UInt8(ascii: "X"), filler].contains(sex)
            && name.allSatisfy { letters($0) || $0 == filler }
        checks = Checks(documentNumber: Self.holds(numberBytes[...], numberDigit), dateOfBirth: Self.holds(birth.0, birth.1),
                        expiryDate: Self.holds(expiry.0, expiry.1), optionalData: optionalHolds,
                        composite: composite.map { Self.holds($0.0[...], $0.1) } ?? true, dates: birthDate != nil && expiryDate != nil, fields: fields)
    }

    /// The first letter of a document code (ICAO 9303 parts 4 to 7): A, C or I for official
    /// travel documents, P for passports, V for visas.
    static let documentKinds: Set<UInt8> = Set("ACIPV".utf8)

    static func isMRZCharacter(_ b: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) || b == UInt8(ascii: "<")
    }

    private static func text(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    /// The field without its trailing fillers.
    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> String {
        text(bytes[bytes.startIndex..<((bytes.lastIndex { $0 != UInt8(ascii: "<") }).map { $0 + 1 } ?? bytes.startIndex)])
    }

    private static func holds(_ field: ArraySlice<UInt8>, _ digit: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) && Int(digit - UInt8(ascii: "0")) == MRZCheckDigit.of(text(field))
    }

    /// Letters, then fillers only (`D<<`).
    private static func letterCode(_ bytes: ArraySlice<UInt8>) -> Bool {
        fillersOnlyAtEnd(bytes) && bytes.first.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) } == true
            && bytes.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || $0 == UInt8(ascii: "<") }
    }

    private static func fillersOnlyAtEnd(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard let first = bytes.firstIndex(of: UInt8(ascii: "<")) else { return true }
        return bytes[first...].allSatisfy { $0 == UInt8(ascii: "<") }
    }

    /// The primary identifier, then after `<<` the secondary ones, `<` between words.
    private static func names(_ field: ArraySlice<UInt8>) -> (String, String) {
        let text = trimmed(field)
        let parts = text.components(separatedBy: "<<")
        let surname = parts[0].replacingOccurrences(of: "<", with: " ")
        let given = parts.dropFirst().joined(separator: " ").split(separator: "<", omittingEmptySubsequences: true).joined(separator: " ")
        return (surname, given)
    }
}
