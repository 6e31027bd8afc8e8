import Foundation
import VigilCore

/// An API key as the store keeps it: never the key itself, only its hash (stored apart), an id
/// and the key's first characters to name it by.
public struct APIKeyRecord: Hashable, Sendable {
    /// Stable id ("ak_...").
    public var id: String
    /// The tenant it authenticates.
    public var tenantId: String
    /// The key's first characters ("vk_live_" and 4 more), shown to tell keys apart; nil for
    /// keys made before prefixes were kept.
    public var prefix: String?
    /// When it was made.
    public var createdAt: Date
    /// When it was revoked; nil while it is live.
    public var revokedAt: Date?

    /// A key record.
    public init(id: String, tenantId: String, prefix: String?, createdAt: Date, revokedAt: Date? = nil) {
        self.id = id
        self.tenantId = tenantId
        self.prefix = prefix
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}

/// A customer of this Vigil: its sessions, keys and webhook are its own.
public struct Tenant: Hashable, Sendable {
    /// Stable id ("tn_...").
    public var id: String
    /// Display name.
    public var name: String
    /// When it was created.
    public var createdAt: Date
    /// Where webhooks go, when configured.
    public var webhookURL: String?
    /// The webhook signing secret, when configured.
    public var webhookSecret: String?

    /// A tenant.
    public init(id: String, name: String, createdAt: Date, webhookURL: String? = nil, webhookSecret: String? = nil) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
        self.webhookURL = webhookURL
        self.webhookSecret = webhookSecret
    }
}

/// One verification session as stored: never the token itself, only its SHA-256.
public struct SessionRecord: Hashable, Sendable {
    /// Stable id ("ses_...").
    public var id: String
    /// The owning tenant.
    public var tenantId: String
    /// Hex SHA-256 of the session token.
    public var tokenHash: String
    /// Where the session is.
    public var status: SessionStatus
    /// The validated policy in force.
    public var policy: LivenessPolicy
    /// The tenant's optional device/session hint for velocity checks.
    public var ssid: String?
    /// The tenant's own reference, echoed in the result.
    public var externalRef: String?
    /// UI language and theme for the capture page.
    public var locale: String?, theme: String?
    /// Where the capture page sends the person when done.
    public var redirectUrl: String?
    /// Lifecycle times.
    public var createdAt: Date, expiresAt: Date, updatedAt: Date
    /// The engine's persisted state after the last frame batch (opaque to the store).
    public var engineState: [UInt8]?
    /// The result JSON once decided, and its compact JWS.
    public var result: [UInt8]?, signedResult: String?
    /// "passed" or "failed" once decided (what velocity checks count).
    public var outcome: String?
    /// Risk signals found at creation.
    public var risk: SessionRisk?
    /// The identity document captured in the document step, as read (nil until then).
    public var document: DocumentResult?
    /// Incremented by every update; an update from a stale read is refused.
    public var version: Int

    /// A new session record (version 0).
    public init(id: String, tenantId: String, tokenHash: String, status: SessionStatus = .created, policy: LivenessPolicy,
                ssid: String? = nil, externalRef: String? = nil, locale: String? = nil, theme: String? = nil,
                createdAt: Date, expiresAt: Date) {
        self.id = id
        self.tenantId = tenantId
        self.tokenHash = tokenHash
        self.status = status
        self.policy = policy
        self.ssid = ssid
        self.externalRef = externalRef
        self.locale = locale
        self.theme = theme
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        updatedAt = createdAt
        version = 0
    }
}

/// The few fields of a session a status poll needs to know whether its cached answer is current.
public struct SessionHead: Hashable, Sendable {
    /// The session's id and owner.
    public var id: String, tenantId: String
    /// Where the session is.
    public var status: SessionStatus
    /// When the token stops working.
    public var expiresAt: Date
    /// The record's version.
    public var version: Int

    /// A head.
    public init(id: String, tenantId: String, status: SessionStatus, expiresAt: Date, version: Int) {
        self.id = id
        self.tenantId = tenantId
        self.status = status
        self.expiresAt = expiresAt
        self.version = version
    }
}

/// An Ed25519 signing key for verdicts; retired keys stay published, revoked ones do not.
public struct SigningKeyRecord: Hashable, Sendable {
    /// Key id, as in the JWS header and JWKS.
    public var kid: String
    /// The 32-byte private seed.
    public var seed: [UInt8]
    /// The 32-byte public key.
    public var publicKey: [UInt8]
    /// When it was made, when it stopped signing, and when it was withdrawn from the JWKS.
    public var createdAt: Date, retiredAt: Date?, revokedAt: Date?

    /// A key record.
    public init(kid: String, seed: [UInt8], publicKey: [UInt8], createdAt: Date, retiredAt: Date? = nil, revokedAt: Date? = nil) {
        self.kid = kid
        self.seed = seed
        self.publicKey = publicKey
        self.createdAt = createdAt
        self.retiredAt = retiredAt
        self.revokedAt = revokedAt
    }
}

/// The answer given to a request with an `Idempotency-Key`, replayed for the same key and body.
public struct IdempotencyRecord: Hashable, Sendable {
    /// The tenant and its key.
    public var tenantId: String, key: String
    /// Hex SHA-256 of the request body (a different body under the same key is a conflict).
    public var requestHash: String
    /// The status and body answered.
    public var status: Int, body: [UInt8]
    /// When it was stored.
    public var createdAt: Date

    /// A record.
    public init(tenantId: String, key: String, requestHash: String, status: Int, body: [UInt8], createdAt: Date) {
        self.tenantId = tenantId
        self.key = key
        self.requestHash = requestHash
        self.status = status
        self.body = body
        self.createdAt = createdAt
    }
}

/// One webhook event in the persistent outbox.
public struct WebhookDelivery: Hashable, Sendable {
    /// Delivery state.
    public enum State: String, Sendable {
        /// Waiting for its next attempt.
        case pending
        /// Answered 2xx.
        case delivered
        /// Given up on after the retry window.
        case dead
    }

    /// Stable id ("evt_...").
    public var id: String
    /// The tenant and session concerned.
    public var tenantId: String, sessionId: String
    /// "session.completed", "session.expired", "session.cancelled".
    public var event: String
    /// The JSON body to POST.
    public var payload: [UInt8]
    /// State, attempts so far, when to try next, the last failure.
    public var state: State, attempts: Int, nextAttemptAt: Date, lastError: String?
    /// When it was queued.
    public var createdAt: Date

    /// A new pending delivery, due now.
    public init(id: String, tenantId: String, sessionId: String, event: String, payload: [UInt8], createdAt: Date) {
        self.id = id
        self.tenantId = tenantId
        self.sessionId = sessionId
        self.event = event
        self.payload = payload
        state = .pending
        attempts = 0
        nextAttemptAt = createdAt
        lastError = nil
        self.createdAt = createdAt
    }
}

/// A session's reference face (from `referenceImage`): its descriptor, opaque to the store, kept
/// until the retention deadline.
public struct ReferenceFace: Hashable, Sendable {
    /// The encoded descriptor.
    public var descriptor: [UInt8]
    /// When the retention purge removes it.
    public var deleteAfter: Date

    /// A reference face.
    public init(descriptor: [UInt8], deleteAfter: Date) {
        self.descriptor = descriptor
        self.deleteAfter = deleteAfter
    }
}

/// A session's audit image (the best frame, JPEG), kept until the retention deadline.
public struct AuditImage: Hashable, Sendable {
    /// The JPEG bytes as uploaded.
    public var jpeg: [UInt8]
    /// When the retention purge removes it.
    public var deleteAfter: Date

    /// An audit image.
    public init(jpeg: [UInt8], deleteAfter: Date) {
        self.jpeg = jpeg
        self.deleteAfter = deleteAfter
    }
}

/// The photo of a session's identity document (JPEG, as uploaded) and the descriptor of the
/// face on its portrait (opaque to the store), kept until the retention deadline.
public struct DocumentImage: Hashable, Sendable {
    /// The JPEG bytes as uploaded.
    public var jpeg: [UInt8]
    /// The encoded descriptor of the portrait's face, when one was found.
    public var portrait: [UInt8]?
    /// When the retention purge removes it.
    public var deleteAfter: Date

    /// A document image.
    public init(jpeg: [UInt8], portrait: [UInt8]?, deleteAfter: Date) {
        self.jpeg = jpeg
        self.portrait = portrait
        self.deleteAfter = deleteAfter
    }
}

/// A frame's content hash, kept for `crossSessionFrames` until `deleteAfter`.
public struct FrameHash: Hashable, Sendable {
    public let hash: UInt64
    public let deleteAfter: Date

    /// The hash of a frame received now, kept until `deleteAfter`.
    public init(_ hash: UInt64, deleteAfter: Date) {
        self.hash = hash
        self.deleteAfter = deleteAfter
    }
}

/// What a session update does to the session's personal data (audit image, reference face,
/// document image).
public enum PersonalDataChange: Hashable, Sendable {
    /// Leaves it as it is.
    case keep
    /// Stores (or replaces) the audit image.
    case storeAuditImage(AuditImage)
    /// Stores the document image (one a session).
    case storeDocumentImage(DocumentImage)
    /// Erases the audit image, the reference face and the document image, and puts the given payloads (by delivery
    /// id) in place of those of the session's webhooks not yet delivered.
    case erase(webhookPayloads: [String: [UInt8]])
}
