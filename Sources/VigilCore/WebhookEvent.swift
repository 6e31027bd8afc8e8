import Foundation

/// The JSON body of one webhook delivery (docs/api.md, "Webhooks"), as the server sends it and a
/// backend reads it after checking `Vigil-Signature`. Dates are ISO 8601.
public struct WebhookEvent: Codable, Hashable, Sendable {
    /// Unique id of the event (`evt_...`): a backend drops one it has already handled.
    public var id: String
    /// `session.completed`, `session.expired`, ...
    public var type: String
    /// When the event was made.
    public var createdAt: Date
    /// The session it is about.
    public var sessionId: String
    /// The tenant's reference, when given at creation.
    public var externalRef: String?
    /// The session's status when the event was made.
    public var status: SessionStatus
    /// The decided result, for `session.completed`.
    public var result: VerdictPayload?
    /// The result as signed (compact JWS), for `session.completed`: verify this one.
    public var signedResult: String?

    /// An event.
    public init(id: String, type: String, createdAt: Date, sessionId: String, externalRef: String?, status: SessionStatus,
                result: VerdictPayload?, signedResult: String?) {
        self.id = id
        self.type = type
        self.createdAt = createdAt
        self.sessionId = sessionId
        self.externalRef = externalRef
        self.status = status
        self.result = result
        self.signedResult = signedResult
    }
}
