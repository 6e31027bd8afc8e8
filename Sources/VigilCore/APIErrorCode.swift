/// Every error code the HTTP API answers with, as `{"error": {"code", "message", "requestId"}}`,
/// and the status that goes with it: the server throws these, the SDK reads them, and a test
/// checks `docs/api.md` and `docs/openapi.yaml` against them.
public enum APIErrorCode: String, CaseIterable, Codable, Sendable {
    /// The body is not the JSON object the route takes.
    case invalidJSON = "invalid_json"
    /// A JSON body has a field the route does not know.
    case unknownField = "unknown_field"
    /// A field has a value out of its type or range (the message names it).
    case invalidField = "invalid_field"
    /// A required field is missing.
    case missingField = "missing_field"
    /// A liveness policy that cannot be run (the message names the field).
    case invalidPolicy = "invalid_policy"
    /// A frame's `Vigil-Capture-Time` is missing or out of range.
    case invalidCaptureTime = "invalid_capture_time"
    /// An `Idempotency-Key` longer than 255 bytes.
    case invalidIdempotencyKey = "invalid_idempotency_key"
    /// A webhook URL that is not https (or http to an allowed host), or resolves to a private address.
    case invalidWebhookURL = "invalid_webhook_url"
    /// A tenant route called without an API key.
    case missingAPIKey = "missing_api_key"
    /// An API key that is not (or no longer) valid.
    case invalidAPIKey = "invalid_api_key"
    /// A session token that is not valid.
    case invalidToken = "invalid_token"
    /// No such route.
    case notFound = "not_found"
    /// No such session (also another tenant's).
    case sessionNotFound = "session_not_found"
    /// No such live API key of the tenant.
    case apiKeyNotFound = "api_key_not_found"
    /// The route exists for other methods (see `Allow`).
    case methodNotAllowed = "method_not_allowed"
    /// An `Idempotency-Key` reused with another body.
    case idempotencyConflict = "idempotency_conflict"
    /// The session is completed or cancelled.
    case sessionFinished = "session_finished"
    /// The session used all its attempts.
    case sessionLocked = "session_locked"
    /// The session changed meanwhile; retry.
    case concurrentUpdate = "concurrent_update"
    /// The page already reported its device id.
    case deviceIdAlreadyReported = "device_id_already_reported"
    /// A location reported for a session that did not ask for one.
    case locationNotRequested = "location_not_requested"
    /// The page already reported the location.
    case locationAlreadyReported = "location_already_reported"
    /// The flashes were already declined.
    case reflectionAlreadyDeclined = "reflection_already_declined"
    /// The flashes already started; they can no longer be declined.
    case reflectionStarted = "reflection_started"
    /// The policy does not allow declining the flashes.
    case motionOnlyNotAllowed = "motion_only_not_allowed"
    /// A document photo for a session whose policy has no document step.
    case documentNotRequested = "document_not_requested"
    /// The session's document was captured already.
    case documentAlreadyCaptured = "document_already_captured"
    /// The policy requires a document before the liveness step.
    case documentRequired = "document_required"
    /// The tenant holds as many live API keys as it may (two, for a rotation): revoke one first.
    case apiKeyLimit = "api_key_limit"
    /// The tenant's last live API key cannot be revoked with the API (the operator can).
    case lastAPIKey = "last_api_key"
    /// The session passed `expiresAt`.
    case sessionExpired = "session_expired"
    /// The body is larger than the route takes.
    case bodyTooLarge = "body_too_large"
    /// A photo or frame larger than its pixel limit.
    case imageTooLarge = "image_too_large"
    /// A frame that is not `image/jpeg`.
    case unsupportedMediaType = "unsupported_media_type"
    /// An image that is not a JPEG or PNG, or does not decode.
    case invalidImage = "invalid_image"
    /// A reference or compared photo without a face.
    case noFace = "no_face"
    /// The session took its 3000 frames.
    case tooManyFrames = "too_many_frames"
    /// Too many requests (see `Retry-After`).
    case rateLimited = "rate_limited"
    /// A stored engine state that does not decode; the session cannot continue.
    case engineStateCorrupt = "engine_state_corrupt"
    /// The result could not be signed.
    case signingFailed = "signing_failed"
    /// An unexpected failure (logged with the request id).
    case internalError = "internal_error"
    /// The database could not complete the request.
    case storageUnavailable = "storage_unavailable"
    /// The server is not ready (the database does not answer).
    case notReady = "not_ready"
    /// This node serves as many sessions or frames as it can (see `Retry-After` and `retryAfterMs`).
    case serverBusy = "server_busy"

    /// The HTTP status answered with this code.
    public var status: Int {
        switch self {
        case .invalidJSON, .unknownField, .invalidField, .missingField, .invalidPolicy, .invalidCaptureTime, .invalidIdempotencyKey, .invalidWebhookURL: 400
        case .missingAPIKey, .invalidAPIKey, .invalidToken: 401
        case .notFound, .sessionNotFound, .apiKeyNotFound: 404
        case .methodNotAllowed: 405
        case .idempotencyConflict, .sessionFinished, .sessionLocked, .concurrentUpdate, .deviceIdAlreadyReported, .locationNotRequested, .locationAlreadyReported, .reflectionAlreadyDeclined, .reflectionStarted, .motionOnlyNotAllowed, .documentNotRequested, .documentAlreadyCaptured, .documentRequired, .apiKeyLimit, .lastAPIKey: 409
        case .sessionExpired: 410
        case .bodyTooLarge, .imageTooLarge: 413
        case .unsupportedMediaType: 415
        case .invalidImage, .noFace: 422
        case .tooManyFrames, .rateLimited: 429
        case .engineStateCorrupt, .signingFailed, .internalError: 500
        case .storageUnavailable, .notReady, .serverBusy: 503
        }
    }
}
