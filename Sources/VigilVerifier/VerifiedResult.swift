import VigilCore

/// A signed result whose signature, audience and age were checked.
public struct VerifiedResult: Sendable, Hashable {
    /// The signed claims.
    public let claims: VerdictPayload
    /// The key that signed it.
    public let kid: String
    /// The compact JWS as received (store it as the evidence).
    public let compact: String

    /// Whether the server decided the session passed.
    public var passed: Bool { claims.outcome == "passed" }
    /// The session the result is about.
    public var sessionId: String { claims.sub }
}
