/// The payload of a signed result (SPEC section 7): what a tenant backend verifies.
public struct VerdictPayload: Codable, Hashable, Sendable {
    /// One check's outcome, as published.
    public struct Check: Codable, Hashable, Sendable {
        /// Whether it passed.
        public var passed: Bool
        /// In [0, 1].
        public var score: Double
        /// Why it failed, when it did.
        public var reason: String?

        /// A check.
        public init(passed: Bool, score: Double, reason: String? = nil) {
            self.passed = passed
            self.score = score
            self.reason = reason
        }
    }

    /// The live face against a photo of the person: the session's reference photo or its document's portrait.
    public struct Match: Codable, Hashable, Sendable {
        /// Whether they are the same person (distance within the threshold).
        public var matched: Bool
        /// In [0, 1]; 0.5 at the threshold.
        public var similarity: Double
        /// Descriptor distance.
        public var distance: Double

        /// A match.
        public init(matched: Bool, similarity: Double, distance: Double) {
            self.matched = matched
            self.similarity = similarity
            self.distance = distance
        }
    }

    /// Issuer: the server's base URL.
    public var iss: String
    /// Audience: the tenant id.
    public var aud: String
    /// Subject: the session id.
    public var sub: String
    /// Issued at (Unix seconds).
    public var iat: Int
    /// Unique id of this result.
    public var jti: String
    /// The tenant's reference, when given.
    public var externalRef: String?
    /// "passed" or "failed".
    public var outcome: String
    /// In [0, 1]; >= 0.5 exactly when passed.
    public var score: Double
    /// Up to three feedback codes.
    public var feedback: [FeedbackCode]
    /// Per-check outcomes by name (the challenges under "challenges").
    public var checks: [String: Check]
    /// The reference-photo match, when the session had one.
    public var match: Match?
    /// Risk signals found at creation (velocity), when any.
    public var risk: SessionRisk?
    /// The attempt this result decided (1 for the first).
    public var attempt: Int?
    /// True when the session failed on its last allowed attempt: it takes no more.
    public var lockedOut: Bool?
    /// The identity document captured in the session's document step, when it had one.
    public var document: DocumentResult?
    /// `device` in the copy signed for the device (`forDevice`); absent in the full result that
    /// the tenant's API and webhooks carry.
    public var scope: String?

    /// The copy of this result the device gets (the capture page, the SDK, which may hand it to
    /// the tenant's backend): the same session, outcome, score, feedback, checks and match,
    /// without personal data: of the document only its type, issuer, checks and face match,
    /// of the risk signals no coordinates, device id or camera label. `scope` says so.
    public var forDevice: VerdictPayload {
        var copy = self
        copy.document = document?.erasingPersonalData
        copy.risk = risk?.erasingPersonalData
        copy.scope = "device"
        return copy
    }

    /// A payload.
    public init(iss: String, aud: String, sub: String, iat: Int, jti: String, externalRef: String?, outcome: String, score: Double,
                feedback: [FeedbackCode], checks: [String: Check], match: Match? = nil, risk: SessionRisk? = nil,
                attempt: Int? = nil, lockedOut: Bool? = nil, document: DocumentResult? = nil) {
        self.document = document
        self.attempt = attempt
        self.lockedOut = lockedOut
        self.match = match
        self.risk = risk
        self.iss = iss
        self.aud = aud
        self.sub = sub
        self.iat = iat
        self.jti = jti
        self.externalRef = externalRef
        self.outcome = outcome
        self.score = score
        self.feedback = feedback
        self.checks = checks
    }
}
