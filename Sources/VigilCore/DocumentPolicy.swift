/// The identity documents a session may accept, by ICAO 9303 format.
public enum DocumentType: String, Codable, CaseIterable, Sendable {
    /// A passport booklet: TD3, two lines of 44.
    case passport
    /// An identity card: TD1, three lines of 30.
    case idCard
    /// A TD2 card: two lines of 36.
    case td2
    /// A visa, MRV-A (two lines of 44) or MRV-B (two of 36), told by its code `V`. Not an
    /// identity document by itself: accepted only where a policy names it.
    case visa

    /// The identity documents, accepted when a policy names no types.
    public static let identityDocuments: [DocumentType] = [.passport, .idCard, .td2]

    /// The formats as a result names them (`TD1`, `TD2`, `TD3`, `MRVA`, `MRVB`).
    public var formats: Set<String> {
        switch self {
        case .passport: ["TD3"]
        case .idCard: ["TD1"]
        case .td2: ["TD2"]
        case .visa: ["MRVA", "MRVB"]
        }
    }
}

/// A session's document step, before liveness (`policy.document`): the person photographs an
/// identity document, and its machine-readable zone and portrait go into the signed result.
public struct DocumentPolicy: Codable, Hashable, Sendable {
    /// Whether liveness may start only after a document was captured; when false the person may
    /// skip the step.
    public var required: Bool
    /// The formats accepted.
    public var types: [DocumentType]
    /// Whether the live face must match the document's portrait (a portrait must be found).
    public var matchFace: Bool

    /// A document step; by default required, any identity document, with the face compared.
    public init(required: Bool = true, types: [DocumentType] = DocumentType.identityDocuments, matchFace: Bool = true) {
        self.required = required
        self.types = types
        self.matchFace = matchFace
    }

    private enum CodingKeys: String, CodingKey { case required, types, matchFace }

    /// Decodes a document step; omitted fields take the defaults of `init`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(required: try c.decodeIfPresent(Bool.self, forKey: .required) ?? true,
                  types: try c.decodeIfPresent([DocumentType].self, forKey: .types) ?? DocumentType.identityDocuments,
                  matchFace: try c.decodeIfPresent(Bool.self, forKey: .matchFace) ?? true)
    }

    /// Whether a document read as `format` (`TD1`, `TD2`, `TD3`, `MRVA`, `MRVB`) is accepted.
    public func accepts(format: String) -> Bool { types.contains { $0.formats.contains(format) } }

    /// The step itself when its fields are consistent; otherwise the first problem.
    public func validated() throws(PolicyError) -> DocumentPolicy {
        guard !types.isEmpty else { throw PolicyError(field: "document.types", reason: "must name at least one of passport, idCard, td2, visa") }
        guard Set(types).count == types.count else { throw PolicyError(field: "document.types", reason: "lists a type twice") }
        return self
    }
}
