import Testing
@testable import VigilDocument

/// ICAO 9303's specimens (parts 4 to 6: Anna Maria Eriksson of Utopia) and what becomes of
/// them when a character is misread.
@Suite struct MRZTests {
    static let today = MRZDate(year: 2026, month: 12, day: 4)
    static let td3 = ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"]
    static let td2 = ["I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<", "D231458907UTO7408122F1204159<<<<<<<6"]
    static let td1 = ["I<UTOD231458907<<<<<<<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<6", "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"]

    @Test func theCheckDigitWeighsSevenThreeOne() {
        #expect(MRZCheckDigit.of("L898902C3") == 6 && MRZCheckDigit.of("740812") == 2 && MRZCheckDigit.of("120415") == 9)
        #expect(MRZCheckDigit.of("ZE184226B<<<<<") == 1 && MRZCheckDigit.of("<<<<") == 0 && MRZCheckDigit.of("") == 0)
    }

    @Test func theThreeSpecimensReadWithEveryCheckHolding() throws {
        let passport = try MRZ(lines: Self.td3, today: Self.today)
        #expect(passport.format == .td3 && passport.documentCode == "P" && passport.issuingState == "UTO" && passport.nationality == "UTO")
        #expect(passport.documentNumber == "L898902C3" && passport.surname == "ERIKSSON" && passport.givenNames == "ANNA MARIA")
        #expect(passport.dateOfBirth?.description == "1974-08-12" && passport.expiryDate?.description == "2012-04-15" && passport.sex == "F")
        #expect(passport.optionalData == "ZE184226B" && passport.checks.all && passport.isExpired(on: Self.today))
        for lines in [Self.td2, Self.td1] {
            let card = try MRZ(lines: lines, today: Self.today)
            #expect(card.documentCode == "I" && card.documentNumber == "D23145890" && card.surname == "ERIKSSON" && card.givenNames == "ANNA MARIA")
            #expect(card.dateOfBirth == MRZDate(year: 1974, month: 8, day: 12) && card.sex == "F" && card.optionalData.isEmpty)
            #expect(card.checks.all, "\(card.checks)")
        }
    }

    /// The usual OCR confusions in any field a check digit covers leave a check failing.
    @Test func aMisreadCoveredCharacterNeverPassesItsChecks() throws {
        let confusions: [Character: Character] = ["0": "O", "O": "0", "1": "I", "I": "1", "2": "Z", "Z": "2", "5": "S", "S": "5", "8": "B", "B": "8",
                                                  "4": "A", "7": "T"]
        var tried = 0
        for (lines, covered) in [(Self.td3, [(1, Array(0..<10) + Array(13..<20) + Array(21..<44))]),
                                 (Self.td1, [(0, Array(5..<30)), (1, Array(0..<7) + Array(8..<15) + Array(18..<30))])] {
            for (row, positions) in covered {
                for position in positions {
                    var line = Array(lines[row])
                    guard let swapped = confusions[line[position]] else { continue }
                    line[position] = swapped
                    var misread = lines
                    misread[row] = String(line)
                    tried += 1
                    guard let reading = try? MRZ(lines: misread, today: Self.today) else { continue }
                    #expect(!reading.checks.all, "\(misread) passed")
                }
            }
        }
        #expect(tried > 30)
    }

    @Test func impossibleDatesAndBadFieldsAreFlaggedNotCorrected() throws {
        var lines = Self.td3
        lines[1] = "L898902C36UTO7413322F1204159ZE184226B<<<<<10"   // month 13, day 32
        let reading = try MRZ(lines: lines, today: Self.today)
        #expect(reading.dateOfBirth == nil && !reading.checks.dates && !reading.checks.dateOfBirth && !reading.checks.all)
        lines = Self.td3
        lines[0] = "P<UT0ERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<"   // a digit in the state
        #expect(try !MRZ(lines: lines, today: Self.today).checks.fields)
        #expect(try MRZ(lines: lines, today: Self.today).issuingState == "UT0")   // as read
    }

    /// No check digit covers the document code: P read as F would otherwise pass every check.
    @Test func aDocumentCodeNoICAODocumentStartsWithFailsTheFieldRules() throws {
        for first in ["F", "B", "J"] {
            let lines = [first + Self.td3[0].dropFirst(), Self.td3[1]]
            let reading = try MRZ(lines: lines, today: Self.today)
            #expect(!reading.checks.fields && reading.checks.checkDigits && reading.documentCode == first + "")
        }
        for first in ["P", "V", "I", "A", "C"] { #expect(try MRZ(lines: [first + Self.td3[0].dropFirst(), Self.td3[1]], today: Self.today).checks.fields) }
    }

    @Test func whatIsNoZoneIsATypedError() {
        #expect(throws: MRZError.unrecognizedFormat(lineLengths: [44])) { try MRZ(lines: [Self.td3[0]], today: Self.today) }
        #expect(throws: MRZError.invalidCharacters(line: 2)) {
            try MRZ(lines: [Self.td3[0], "l898902C36UTO7408122F1204159ZE184226B<<<<<10"], today: Self.today)
        }
        #expect(throws: MRZError.empty) { try MRZ(lines: [String(repeating: "<", count: 44), String(repeating: "<", count: 44)], today: Self.today) }
    }

    /// A TD1 number over 9 characters continues in the optional data, with its check digit after it.
    @Test func aLongDocumentNumberContinuesInTheOptionalData() throws {
        let number = "D23145890734"
        let digit = MRZCheckDigit.of(number)
        let line1 = "I<UTO" + number.prefix(9) + "<" + number.dropFirst(9) + "\(digit)<" + String(repeating: "<", count: 10)
        let line2Body = "7408122F1204159UTO<<<<<<<<<<<"
        let composite = MRZCheckDigit.of(line1.dropFirst(5) + line2Body.prefix(7) + line2Body.dropFirst(8).prefix(7) + line2Body.dropFirst(18))
        let card = try MRZ(lines: [line1, line2Body + "\(composite)", Self.td1[2]], today: Self.today)
        #expect(card.documentNumber == number && card.checks.all, "\(card)")
    }

    /// What check digits cannot see: characters whose values differ by 10 (6 is 6, G is 16).
    /// In an alphanumeric field such a misread passes every check; in a date it fails the
    /// field check. The OCR must not guess between them.
    @Test func aSixReadAsGInTheDocumentNumberPassesTheCheckDigits() throws {
        var lines = Self.td3
        lines[1] = "L898902C36UTO7408122F1204159ZE18422GB<<<<<10"
        #expect(try MRZ(lines: lines, today: Self.today).checks.all)
        lines[1] = "L898902C36UTO74081G2F1204159ZE184226B<<<<<10"
        #expect(try !MRZ(lines: lines, today: Self.today).checks.fields)
    }
}

extension MRZTests {
    static let anna = MRZComposer.Fields(documentCode: "P", issuingState: "UTO", documentNumber: "L898902C3", surname: "ERIKSSON",
                                         givenNames: "ANNA MARIA", nationality: "UTO", dateOfBirth: MRZDate(year: 1974, month: 8, day: 12),
                                         expiryDate: MRZDate(year: 2012, month: 4, day: 15), sex: "F", optionalData: "ZE184226B")

    /// Composed from its fields, each specimen is ICAO's own, check digits included.
    @Test func composingTheSpecimensGivesICAOsZones() {
        #expect(MRZComposer.lines(.td3, Self.anna) == Self.td3)
        var card = Self.anna
        card.documentCode = "I"
        card.documentNumber = "D23145890"
        card.optionalData = ""
        #expect(MRZComposer.lines(.td2, card) == Self.td2)
        #expect(MRZComposer.lines(.td1, card) == Self.td1)
    }

    /// Whatever the fields, a composed zone parses back to them with every check holding.
    @Test func composedZonesParseBackToTheirFields() throws {
        var state: UInt64 = 5
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ"), alphanumerics = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        for _ in 0..<300 {
            let word = { (n: Int) in String((0..<n).map { _ in letters[next(letters.count)] }) }
            let fields = MRZComposer.Fields(documentCode: ["P", "I", "ID", "AC"][next(4)], issuingState: word(3),
                                            documentNumber: String((0..<(5 + next(5))).map { _ in alphanumerics[next(36)] }),
                                            surname: word(3 + next(8)), givenNames: word(2 + next(6)) + " " + word(2 + next(5)),
                                            nationality: word(3), dateOfBirth: MRZDate(year: 1930 + next(90), month: 1 + next(12), day: 1 + next(28)),
                                            expiryDate: MRZDate(year: 2027 + next(20), month: 1 + next(12), day: 1 + next(28)),
                                            sex: ["M", "F", "X", nil][next(4)], optionalData: next(2) == 0 ? "" : word(4))
            for format in MRZFormat.allCases {
                var fields = fields
                if format.visa == format { fields.documentCode = ["V", "VC"][next(2)] }
                let zone = try MRZ(lines: MRZComposer.lines(format, fields), today: Self.today)
                #expect(zone.format == format && zone.checks.all, "\(zone.lines)")
                #expect(zone.documentNumber == fields.documentNumber && zone.dateOfBirth == fields.dateOfBirth && zone.expiryDate == fields.expiryDate)
                #expect(zone.sex == fields.sex && zone.optionalData == fields.optionalData && zone.nationality == fields.nationality)
            }
        }
    }

    /// Two visa specimens of ../shared/documents-real (PassportEye's test data, MIT), as read by
    /// eye: ICAO 9303 part 7, told from a passport and a card by their code.
    static let mrva = ["VIUSATRAVELER<<HAPPYPERSON<<<<<<<<<<<<<<<<<<", "555123ABC6GBR6502056F0412236IFLND00AMS803085"]
    static let mrvb = ["VCPOLKOWALSKA<KWIATKOWSKA<<BEATA<<<<", "PL00000008POL6002084F0505011<<<<<<<0"]

    @Test func visasReadAsPartSevenLaysThemOutWithoutACompositeDigit() throws {
        let a = try MRZ(lines: Self.mrva, today: Self.today)
        #expect(a.format == .mrva && a.documentCode == "VI" && a.issuingState == "USA" && a.surname == "TRAVELER" && a.givenNames == "HAPPYPERSON")
        #expect(a.documentNumber == "555123ABC" && a.nationality == "GBR" && a.dateOfBirth?.description == "1965-02-05" && a.sex == "F")
        #expect(a.expiryDate?.description == "2004-12-23" && a.optionalData == "IFLND00AMS803085" && a.checks.all, "\(a.checks)")
        let b = try MRZ(lines: Self.mrvb, today: Self.today)
        #expect(b.format == .mrvb && b.documentCode == "VC" && b.surname == "KOWALSKA KWIATKOWSKA" && b.givenNames == "BEATA")
        #expect(b.documentNumber == "PL0000000" && b.expiryDate?.description == "2005-05-01" && b.checks.all, "\(b.checks)")
    }
}
