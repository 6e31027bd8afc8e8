/// An identity document as read from its machine-readable zone (`POST /v1/documents/read`,
/// `vigil document`): the fields as printed, and the checks. Nothing is corrected.
public struct DocumentResult: Codable, Hashable, Sendable {
    /// `TD1`, `TD2` or `TD3`.
    public var type: String?
    public var documentCode: String?
    public var issuingState: String?
    public var documentNumber: String?
    public var surname: String?
    public var givenNames: String?
    public var nationality: String?
    /// ISO 8601 dates (`1974-08-12`); nil where the zone's date is not a calendar date.
    public var dateOfBirth: String?
    public var expiryDate: String?
    /// `M`, `F` or `X`; nil for unspecified.
    public var sex: String?
    public var optionalData: String?
    public var checks: Checks
    /// The live face against the document's portrait, in a session whose policy compares them.
    public var face: VerdictPayload.Match?
    /// Why nothing was read, when `checks.readable` is false.
    public var reason: String?
    /// What the person can do for a photo that reads, when `checks.readable` is false.
    public var guidance: DocumentGuidance?
    /// Signs that the photo shows a copy of the document, when a zone was found on it (read or
    /// not): informational, never a check (`docs/document.md`).
    public var signs: Signs?

    /// Signs that a photo shows a copy of the document rather than the document.
    public struct Signs: Codable, Hashable, Sendable {
        /// The page shows a screen's pixel grid beating with the camera's (moire).
        public var screen: Bool
        /// The page has no colour: a greyscale copy.
        public var photocopy: Bool
        /// The strongest periodic peak of the page's colour over its ring's median (about 5-15
        /// on paper).
        public var screenPattern: Double
        /// How much the page's colour varies (Hasler and Suesstrunk's spread term; 0 for grey).
        public var colourfulness: Double

        /// Signs with every value given.
        public init(screen: Bool, photocopy: Bool, screenPattern: Double, colourfulness: Double) {
            self.screen = screen
            self.photocopy = photocopy
            self.screenPattern = screenPattern
            self.colourfulness = colourfulness
        }
    }

    /// What holds of the reading.
    public struct Checks: Codable, Hashable, Sendable {
        /// A zone was found and parsed.
        public var readable: Bool
        /// Every check digit holds, the composite one included.
        public var checkDigits: Bool
        /// Both dates are calendar dates.
        public var dates: Bool
        /// Every field holds only the characters its kind allows.
        public var fields: Bool
        /// The expiry date has passed (or cannot be read).
        public var expired: Bool

        /// Checks with every value given.
        public init(readable: Bool, checkDigits: Bool, dates: Bool, fields: Bool, expired: Bool) {
            self.readable = readable
            self.checkDigits = checkDigits
            self.dates = dates
            self.fields = fields
            self.expired = expired
        }

        /// Read, every check holding, not expired.
        public var valid: Bool { readable && checkDigits && dates && fields && !expired }
    }

    /// The result without what identifies the person (names, number, dates, optional data):
    /// what stays once a session's personal data is erased.
    public var erasingPersonalData: DocumentResult {
        var erased = DocumentResult(checks: checks, reason: reason)
        erased.guidance = guidance
        erased.signs = signs
        erased.type = type
        erased.documentCode = documentCode
        erased.issuingState = issuingState
        erased.face = face
        return erased
    }

    /// Nothing read, for `reason`; `guidance` says what would help.
    public static func unreadable(_ reason: String, guidance: DocumentGuidance) -> DocumentResult {
        var result = DocumentResult(checks: Checks(readable: false, checkDigits: false, dates: false, fields: false, expired: false), reason: reason)
        result.guidance = guidance
        return result
    }

    /// A result with its checks; the fields are set one by one.
    public init(checks: Checks, reason: String? = nil) {
        self.checks = checks
        self.reason = reason
    }
}
