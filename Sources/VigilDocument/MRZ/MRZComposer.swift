/// Writes a machine-readable zone from its fields, with every check digit computed, as an issuer
/// prints it: for generated test documents. Fields are upper-cased, spaces become fillers, and
/// each is cut or padded to its length.
public enum MRZComposer {
    /// The fields of a document.
    public struct Fields: Sendable, Equatable {
        public var documentCode: String, issuingState: String, documentNumber: String
        public var surname: String, givenNames: String, nationality: String
        public var dateOfBirth: MRZDate, expiryDate: MRZDate
        /// `M`, `F`, `X`, or nil for unspecified.
        public var sex: String?
        public var optionalData: String

        /// A document's fields (the document number at most 9 characters).
        public init(documentCode: String, issuingState: String, documentNumber: String, surname: String, givenNames: String,
                    nationality: String, dateOfBirth: MRZDate, expiryDate: MRZDate, sex: String?, optionalData: String = "") {
            self.documentCode = documentCode
            self.issuingState = issuingState
            self.documentNumber = documentNumber
            self.surname = surname
            self.givenNames = givenNames
            self.nationality = nationality
            self.dateOfBirth = dateOfBirth
            self.expiryDate = expiryDate
            self.sex = sex
            self.optionalData = optionalData
        }
    }

    /// The zone's lines in `format`.
    public static func lines(_ format: MRZFormat, _ f: Fields) -> [String] {
        let code = field(f.documentCode, 2), state = field(f.issuingState, 3), nationality = field(f.nationality, 3)
        let number = field(f.documentNumber, 9), birth = date(f.dateOfBirth), expiry = date(f.expiryDate)
        let sex = f.sex.map { field($0, 1) } ?? "<"
        let numberPart = number + digit(number), birthPart = birth + digit(birth), expiryPart = expiry + digit(expiry)
        switch format {
        case .td3:
            let optional = field(f.optionalData, 14)
            let optionalPart = optional + (optional.allSatisfy { $0 == "<" } ? "<" : digit(optional))
            let composite = digit(numberPart + birthPart + expiryPart + optionalPart)
            return [code + state + name(f, 39), numberPart + nationality + birthPart + sex + expiryPart + optionalPart + composite]
        case .td2:
            let optional = field(f.optionalData, 7)
            let composite = digit(numberPart + birthPart + expiryPart + optional)
            return [code + state + name(f, 31), numberPart + nationality + birthPart + sex + expiryPart + optional + composite]
        case .td1:
            let optional = field(f.optionalData, 15), second = String(repeating: "<", count: 11)
            let composite = digit(numberPart + optional + birthPart + expiryPart + second)
            return [code + state + numberPart + optional, birthPart + sex + expiryPart + nationality + second + composite, name(f, 30)]
        case .mrva, .mrvb:
            let length = format.lineLength
            return [code + state + name(f, length - 5), numberPart + nationality + birthPart + sex + expiryPart + field(f.optionalData, length - 28)]
        }
    }

    /// `text` upper-cased, spaces and other characters as fillers, cut or padded to `length`.
    static func field(_ text: String, _ length: Int) -> String {
        let cleaned = text.uppercased().map { c -> Character in
            guard let a = c.asciiValue, MRZ.isMRZCharacter(a) else { return "<" }
            return c
        }
        return String(cleaned.prefix(length)) + String(repeating: "<", count: max(0, length - cleaned.count))
    }

    private static func name(_ f: Fields, _ length: Int) -> String {
        field(f.surname.split(separator: " ").joined(separator: "<") + "<<" + f.givenNames.split(separator: " ").joined(separator: "<"), length)
    }

    private static func date(_ d: MRZDate) -> String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return two(d.year % 100) + two(d.month) + two(d.day)
    }

    private static func digit(_ text: String) -> String { String(MRZCheckDigit.of(text)) }
}
