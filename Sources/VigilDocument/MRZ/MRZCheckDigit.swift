/// ICAO 9303 part 3, 4.9: the check digit of a field, from its characters' values (digits as
/// themselves, A-Z as 10-35, the filler `<` as 0) weighted 7, 3, 1 in turn, modulo 10.
///
/// It catches any single change of a character into one whose value differs by other than a
/// multiple of 10, which covers the usual OCR confusions (0/O, 1/I, 2/Z, 5/S, 8/B), but not,
/// for example, 0 read as A. No reading is ever "corrected" to make it pass.
public enum MRZCheckDigit {
    /// The check digit of `field` (characters outside 0-9, A-Z and `<` count as 0; a line with
    /// them fails its character check anyway).
    public static func of<S: StringProtocol>(_ field: S) -> Int {
        let weights = [7, 3, 1]
        var sum = 0
        for (i, byte) in field.utf8.enumerated() { sum += value(byte) * weights[i % 3] }
        return sum % 10
    }

    /// Whether `digit` (one character) is the check digit of `field`.
    static func holds<S: StringProtocol>(_ field: S, digit: Character) -> Bool {
        digit.wholeNumberValue == of(field)
    }

    static func value(_ byte: UInt8) -> Int {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): Int(byte - UInt8(ascii: "A")) + 10
        default: 0
        }
    }
}
