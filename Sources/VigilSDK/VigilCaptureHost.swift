import Foundation
import VigilCore

/// Runs the capture of one session: a WebView showing the hosted page, or frames sent
/// directly (`HeadlessCaptureHost`). The client reads the outcome from the server afterwards.
public protocol VigilCaptureHost: Sendable {
    /// Captures until the server reports a final status, the person cancels, or
    /// `session.security()` reports a finding (then nothing more is sent).
    func capture(_ session: VigilCaptureSession) async throws(VigilError)
    /// Loads what a capture from `serverURL` needs ahead of time (page assets); no device checks.
    func prewarm(serverURL: URL, locale: String) async
}

extension VigilCaptureHost {
    /// Nothing to load ahead: a host that sends frames itself.
    public func prewarm(serverURL: URL, locale: String) async {}
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
    /// The SDK's persistent device id, which the page reports instead of one of its own.
    public let deviceId: String?
}

extension VigilCaptureSession {
    /// Throws `.securityException` naming what the device checks find now.
    public func checkSecurity() throws(VigilError) {
        let findings = security()
        if !findings.isEmpty { throw .securityException(findings.joined(separator: "; ")) }
    }

    /// Polls `GET /v1/client/session` every `pollInterval` until the status is final, backing
    /// off on network errors (a node behind a load balancer may go away meanwhile);
    /// `.userTimeout` after `timeout` seconds. The last thing it does before giving up is ask:
    /// an app suspended in the background past the deadline reads the status once more.
    public func waitForFinalStatus(timeout: TimeInterval) async throws(VigilError) {
        let deadline = ContinuousClock.now + .seconds(timeout)
        var delay = pollInterval
        while true {
            if Task.isCancelled { throw .userCancelled }
            do {
                if try await api.status().isFinal { return }
                delay = pollInterval
            } catch let refusal as DeviceAPIClient.Refusal where refusal.errorCode == .invalidToken {
                throw .invalidToken
            } catch {
                delay = min(delay * 2, 16)
            }
            guard ContinuousClock.now < deadline else { throw .userTimeout }
            try? await Task.sleep(for: .seconds(min(delay, max(0, (deadline - ContinuousClock.now) / .seconds(1)))))
        }
    }
}
