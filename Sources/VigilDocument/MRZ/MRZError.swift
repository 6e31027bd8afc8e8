/// Why lines of text are not a machine-readable zone at all. A zone that is one but whose check
/// digits or dates fail is an `MRZ` whose `checks` say so, not an error.
public enum MRZError: Error, Equatable, Sendable {
    /// Not 3 lines of 30, 2 of 36 or 2 of 44 characters.
    case unrecognizedFormat(lineLengths: [Int])
    /// A character other than A-Z, 0-9 and `<` in line `line` (from 1).
    case invalidCharacters(line: Int)
    /// Only fillers, or no document code.
    case empty
}
