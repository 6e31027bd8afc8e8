/// Body of `POST /v1/sessions`: a policy or a risk level, and the tenant's own fields.
public struct CreateSessionRequest: Codable, Hashable, Sendable {
    /// An explicit policy (validated by the server).
    public var policy: LivenessPolicy?
    /// A preset instead of a policy.
    public var riskLevel: RiskLevel?
    /// A document step added to the `riskLevel` preset (an explicit policy carries its own).
    public var document: DocumentPolicy?
    /// The app's device/session hint (velocity checks).
    public var ssid: String?
    /// The tenant's reference, echoed in the result.
    public var externalRef: String?
    /// Capture page language (BCP 47) and theme.
    public var locale: String?, theme: String?
    /// Where the capture page sends the user when done.
    public var redirectUrl: String?
    /// A photo (JPEG or PNG, base64) the live face must match; the result then carries `match`.
    public var referenceImage: String?
    /// Whether the capture page asks for the device's location (a risk signal, never fatal).
    public var collectLocation: Bool?

    /// The fields a request may carry; anything else is refused.
    public static let fields: Set<String> = ["policy", "riskLevel", "ssid", "externalRef", "locale", "theme", "redirectUrl", "referenceImage",
                                             "collectLocation", "document"]

    /// A request.
    public init(policy: LivenessPolicy? = nil, riskLevel: RiskLevel? = nil, ssid: String? = nil, externalRef: String? = nil,
                locale: String? = nil, theme: String? = nil, redirectUrl: String? = nil, referenceImage: String? = nil,
                document: DocumentPolicy? = nil) {
        self.referenceImage = referenceImage
        self.document = document
        self.policy = policy
        self.riskLevel = riskLevel
        self.ssid = ssid
        self.externalRef = externalRef
        self.locale = locale
        self.theme = theme
        self.redirectUrl = redirectUrl
    }
}

/// Answer of `POST /v1/sessions` (201).
public struct SessionCreated: Codable, Hashable, Sendable {
    /// The session's id.
    public var sessionId: String
    /// The device's bearer token (shown once; stored only as a hash).
    public var sessionToken: String
    /// `<base>/c/<sessionId>#<token>`: the token stays in the fragment, out of server logs.
    public var captureUrl: String
    /// When the token stops working (ISO 8601).
    public var expiresAt: String

    /// An answer.
    public init(sessionId: String, sessionToken: String, captureUrl: String, expiresAt: String) {
        self.sessionId = sessionId
        self.sessionToken = sessionToken
        self.captureUrl = captureUrl
        self.expiresAt = expiresAt
    }
}
