import VigilCore
import VigilFace

/// What decides a session besides its frames, gathered by whoever runs the engine: the server
/// (from arrival times and the store), the evaluation (from its simulated network) or
/// `vigil liveness` (what a recording holds). Each piece present becomes a check of the one
/// decision; an absent piece is not checked.
public struct SessionEvidence: Sendable {
    /// Frames also received by other sessions that a session may have (a covered lens can encode
    /// identically anywhere); more, or more than this share of its frames, fail it as a replay.
    public static let framesSeenElsewhereAllowed = (count: 2, share: 0.05)

    /// The capture clock against arrival times (`captureClock`).
    public var captureClock: CaptureClockCheck?
    /// How many of the session's frames other sessions also sent (`crossSessionFrames`).
    public var framesSeenElsewhere: Int?
    /// The reference photo's face, when the session has one (`match`).
    public var reference: FaceDescriptor?
    /// Whether the page reported a virtual camera (`camera`, when the policy refuses them).
    public var virtualCamera: Bool
    /// The document of the session's document step, when one was captured (`document`,
    /// `documentMatch`).
    public var document: DocumentEvidence?

    /// Evidence; none by default.
    public init(captureClock: CaptureClockCheck? = nil, framesSeenElsewhere: Int? = nil, reference: FaceDescriptor? = nil,
                virtualCamera: Bool = false, document: DocumentEvidence? = nil) {
        self.document = document
        self.captureClock = captureClock
        self.framesSeenElsewhere = framesSeenElsewhere
        self.reference = reference
        self.virtualCamera = virtualCamera
    }
}

/// What the server read of the session's identity document.
public struct DocumentEvidence: Sendable {
    /// Whether its zone held every check and it had not expired.
    public var valid: Bool
    /// The face on its portrait, when one was found.
    public var portrait: FaceDescriptor?

    /// Evidence of a captured document.
    public init(valid: Bool, portrait: FaceDescriptor?) {
        self.valid = valid
        self.portrait = portrait
    }
}
