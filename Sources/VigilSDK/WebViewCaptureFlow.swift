import VigilCore

/// What a WebView host does with each envelope the capture page posts: wait, read the final
/// status from the server, or end the capture with an error. A value type, so the decisions are
/// tested on every platform while the WebKit host only forwards strings to it.
public struct WebViewCaptureFlow: Sendable {
    /// The host's next step after a message.
    public enum Step: Sendable, Hashable {
        /// Nothing to do: keep showing the page.
        case wait
        /// The server decided (a result is on screen): poll the final status and report it.
        case readResult
        /// The capture ended without a result.
        case end(VigilError)
    }

    /// The session this page was opened for: a `cancel` naming another is not this capture's.
    public let sessionId: String
    /// Whether the page said `ready`.
    public private(set) var isReady = false
    /// The last event type the page reported, for logs.
    public private(set) var lastEvent: String?

    /// A flow for the page of `sessionId`.
    public init(sessionId: String) {
        self.sessionId = sessionId
    }

    /// The step for one envelope as posted (a JSON string); malformed, foreign and unknown
    /// messages are dropped and change nothing.
    public mutating func receive(_ envelope: String) -> Step {
        guard let message = try? BridgeMessage(envelope: envelope) else { return .wait }
        switch message {
        case .ready:
            isReady = true
            return .wait
        case .event(let type, _):
            lastEvent = type
            return .wait
        case .complete(.submitted):
            return .readResult
        case .complete(.abandoned):
            return .end(.userCancelled)
        case .cancel(let id):
            return id == sessionId ? .end(.userCancelled) : .wait
        case .error(let code, let message):
            return Self.step(forError: code, message: message)
        }
    }

    /// Error screens the page offers to try again from keep the page up; the others end the capture.
    static func step(forError code: String, message: String) -> Step {
        switch code {
        case "camera_in_use", "camera_timeout", "network_lost": .wait
        case "camera_denied": .end(.cameraPermissionDenied)
        case "unsupported", "no_camera", "camera_failed": .end(.unsupportedDevice)
        case "locked_out", "session_finished": .readResult   // the server holds a signed result
        case "session_expired": .end(.sessionNotCompleted(status: "expired", message: message))
        case "invalid_link": .end(.sessionNotCompleted(status: "invalid", message: message))
        case "cancelled": .end(.userCancelled)
        default: .end(.serverError("\(code): \(message)"))
        }
    }
}
