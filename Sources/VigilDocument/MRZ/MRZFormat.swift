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

    /// The format whose shape `lines` have (nil for any other shape).
    init?(lines: [String]) {
        guard let format = Self.allCases.first(where: { f in lines.count == f.lineCount && lines.allSatisfy { $0.utf8.count == f.lineLength } }) else {
            return nil
        }
        self = format
    }
}
