import Foundation

/// Runs the capture of one session: a WebView showing the hosted page, or frames sent
/// directly (`HeadlessCaptureHost`). The client reads the outcome from the server afterwards.
public protocol VigilCaptureHost: Sendable {
    /// Captures until the server reports a final status, the person cancels, or
    /// `session.security()` reports a finding (then nothing more is sent).
    func capture(_ session: VigilCaptureSession) async throws(VigilError)
}

/// What a host needs for one capture.
public struct VigilCaptureSession: Sendable {
    /// The server's base URL.
    public let serverURL: URL
    /// The session to capture for.
    public let sessionId: String
    /// Its device API.
    public let api: DeviceAPIClient
    /// The page language.
    public let locale: String
    /// Seconds between status polls.
    public let pollInterval: TimeInterval
    /// Seconds between security checks.
    public let securityInterval: TimeInterval
    /// The device security findings now (empty when clean or checks are off).
    public let security: @Sendable () -> [String]
    /// Where to log.
    public let logger: (any VigilLogger)?
}
