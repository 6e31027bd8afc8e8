/// The machine-readable zone's layouts (ICAO 9303 parts 4 to 6): TD3 on passport booklets
/// (2 lines of 44), TD2 (2 of 36) and TD1 on ID cards (3 of 30).
public enum MRZFormat: String, Sendable, Codable, CaseIterable {
    case td1, td2, td3

    /// Lines in the zone.
    public var lineCount: Int { self == .td1 ? 3 : 2 }
    /// Characters in each line.
    public var lineLength: Int {
        switch self {
        case .td1: 30
        case .td2: 36
        case .td3: 44
        }
    }

    /// What a position of the zone may hold besides the filler `<`.
    public enum Kind: Sendable {
        /// Letters: codes, states, nationality, sex and names.
        case letter
        /// Digits: dates and check digits.
        case digit
        /// Letters or digits: document numbers and optional data.
        case any
    }

    /// The kind of each position of line `index` (0 first), as ICAO 9303 parts 4 to 6 lay
    /// the format out.
    public func kinds(line index: Int) -> [Kind] {
        func run(_ kind: Kind, _ count: Int) -> [Kind] { [Kind](repeating: kind, count: count) }
        switch (self, index) {
        case (.td1, 0): return run(.letter, 5) + run(.any, 9) + run(.digit, 1) + run(.any, 15)
        case (.td1, 1): return run(.digit, 7) + run(.letter, 1) + run(.digit, 7) + run(.letter, 3) + run(.any, 11) + run(.digit, 1)
        case (.td1, _): return run(.letter, 30)
        case (_, 0): return run(.letter, lineLength)
        case (.td2, _): return run(.any, 9) + run(.digit, 1) + run(.letter, 3) + run(.digit, 7) + run(.letter, 1) + run(.digit, 7) + run(.any, 7) + run(.digit, 1)
        case (.td3, _): return run(.any, 9) + run(.digit, 1) + run(.letter, 3) + run(.digit, 7) + run(.letter, 1) + run(.digit, 7) + run(.any, 14) + run(.digit, 2)
        }
    }

    /// The format of `lineCount` lines of `lineLength` characters, nil for no format.
    public init?(lineCount: Int, lineLength: Int) {
        guard let format = Self.allCases.first(where: { $0.lineCount == lineCount && $0.lineLength == lineLength }) else { return nil }
        self = format
    }

    /// The format whose shape `lines` have (nil for any other shape).
    init?(lines: [String]) {
        guard let format = Self.allCases.first(where: { f in lines.count == f.lineCount && lines.allSatisfy { $0.utf8.count == f.lineLength } }) else {
            return nil
        }
        self = format
    }
}
