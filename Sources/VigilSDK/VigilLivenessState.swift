import VigilCore

/// What `startLivenessCheck` reports: `.loading`, then exactly one of `.success` or `.error`.
public enum VigilLivenessState: Sendable, Hashable {
    /// The capture runs.
    case loading
    /// The server decided; the verdict is in the result (passed or failed).
    case success(VigilResult)
    /// No decision was reached.
    case error(VigilError)
}

/// What the server signed for the session. The SDK never decides: the backend verifies
/// `signedResult` (VigilVerifier) and acts on that, not on `outcome`.
public struct VigilResult: Sendable, Hashable {
    /// "passed" or "failed", as the server reported it.
    public let outcome: String
    /// A short text for the person, in the configured language.
    public let message: String
    /// Feedback codes (why it failed), up to three.
    public let feedback: [String]
    /// The compact JWS to hand to the backend.
    public let signedResult: String
    /// The audit image (JPEG): nil from the device API, which never returns face images (the tenant API does).
    public let auditImage: [UInt8]?
    /// The identity document of the session's document step, as the signed result carries it
    /// (read from it unverified: the backend verifies the signature).
    public let document: DocumentResult?
}

/// Device data for the app's backend, which passes `ssid` when it creates a session.
public struct VigilSessionData: Sendable, Hashable {
    /// A persistent random device id and the device-integrity verdict; empty when unavailable.
    public let ssid: String
}

/// Versions for support requests.
public struct VigilVersionInfo: Sendable, Hashable {
    /// This SDK's version.
    public let sdkVersion: String
    /// The device API version it speaks.
    public let apiVersion: String
    /// The persistent device id, once initialised.
    public let deviceId: String?
    /// The server's version and its liveness engine's, once `prewarm` reached it.
    public let serverVersion: String?, engineVersion: String?
}
