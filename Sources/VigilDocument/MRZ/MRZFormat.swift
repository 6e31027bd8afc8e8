/// The machine-readable zone's layouts (ICAO 9303 parts 4 to 7): TD3 on passport booklets
/// (2 lines of 44), TD2 (2 of 36) and TD1 on ID cards (3 of 30), and the visas MRV-A (2 of 44)
/// and MRV-B (2 of 36), which have the shape of TD3 and TD2 and are told by their code `V`.
public enum MRZFormat: String, Sendable, Codable, CaseIterable {
    case td1, td2, td3, mrva, mrvb

    /// Lines in the zone.
    public var lineCount: Int { self == .td1 ? 3 : 2 }
    /// Characters in each line.
    public var lineLength: Int {
        switch self {
        case .td1: 30
        case .td2: 36
        case .td3, .mrva: 44
        case .mrvb: 36
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
        // A visa's second line: no composite check digit; optional data to the end.
        case (.mrva, _), (.mrvb, _): return run(.any, 9) + run(.digit, 1) + run(.letter, 3) + run(.digit, 7) + run(.letter, 1) + run(.digit, 7)
                                        + run(.any, lineLength - 28)
        }
    }

    /// The visa of this shape (MRV-A for TD3, MRV-B for TD2), nil for a card's.
    public var visa: MRZFormat? {
        switch self {
        case .td3, .mrva: .mrva
        case .td2, .mrvb: .mrvb
        case .td1: nil
        }
    }

    /// The document format (not a visa's) of `lineCount` lines of `lineLength` characters, nil
    /// for no format.
    public init?(lineCount: Int, lineLength: Int) {
        guard let format = Self.allCases.first(where: { $0.lineCount == lineCount && $0.lineLength == lineLength }) else { return nil }
        self = format
    }

    /// The format whose shape `lines` have, a visa's when its code starts with `V` (nil for any
    /// other shape).
    init?(lines: [String]) {
        guard let format = Self.allCases.first(where: { f in lines.count == f.lineCount && lines.allSatisfy { $0.utf8.count == f.lineLength } }) else {
            return nil
        }
        self = lines[0].first == "V" ? format.visa ?? format : format
    }
}
