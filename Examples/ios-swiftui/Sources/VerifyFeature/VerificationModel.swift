import Foundation
import Observation
import VigilSDK

/// The screen's state: idle, capturing, then the outcome the backend confirmed, or a message.
@MainActor @Observable public final class VerificationModel {
    /// What the screen shows.
    public enum Phase: Equatable {
        case idle
        /// The capture page (or headless host) is running.
        case capturing
        /// The backend's answer on the signed result: accepted or not.
        case finished(passed: Bool, message: String)
        /// Something to show and a way back to `idle`.
        case failed(message: String)
    }

    /// The current phase.
    public private(set) var phase: Phase = .idle

    private let backend: any VerificationBackend
    private let config: VigilConfig
    private let locale: String

    /// A model for `backend`, with the SDK configured by `config`.
    public init(backend: any VerificationBackend, config: VigilConfig) {
        self.backend = backend
        self.config = config
        self.locale = config.locale
    }

    /// When the screen appears: initialise the SDK and let `host` load the page ahead of time.
    public func prepare(host: any VigilCaptureHost) async {
        guard (try? await initialized()) != nil else { return }
        await VigilClient.shared.prewarm(host: host)
    }

    /// One verification with `host`: session from the backend, capture, result to the backend.
    public func verify(with host: any VigilCaptureHost) async {
        let client = VigilClient.shared
        phase = .capturing
        do {
            try await initialized()
        } catch {
            phase = .failed(message: VigilError.unexpected("\(error)").userMessage(locale: locale))
            return
        }
        let ssid = (try? await client.getSessionData().get().ssid) ?? ""
        let session: (sessionId: String, sessionToken: String)
        do {
            session = try await backend.startVerification(ssid: ssid)
        } catch {
            phase = .failed(message: VigilError.networkError("\(error)").userMessage(locale: locale))
            return
        }
        for await state in client.startLivenessCheck(host: host, sessionId: session.sessionId, sessionToken: session.sessionToken) {
            switch state {
            case .loading:
                phase = .capturing
            case .success(let result):
                // What the page said is not the verdict: the backend checks the signature and decides.
                let accepted = (try? await backend.submit(sessionId: session.sessionId, signedResult: result.signedResult)) ?? false
                phase = .finished(passed: accepted, message: accepted || result.outcome != "passed" ? result.message : "We could not verify you")
            case .error(.userCancelled):
                phase = .idle
            case .error(let error):
                phase = .failed(message: error.userMessage(locale: locale))
            }
        }
    }

    private func initialized() async throws(VigilInitError) {
        if !VigilClient.shared.isInitialized { try await VigilClient.shared.initialize(config: config) }
    }

    /// Back to the start screen.
    public func reset() { phase = .idle }
}
