/// Guidance for the person, live during capture and as feedback after a failed session. Codes
/// say what to do next time, never what was detected in detail.
public enum FeedbackCode: String, Codable, CaseIterable, Sendable {
    /// No face in the frame.
    case faceNotFound
    /// More than one face in the frame.
    case multipleFaces
    /// The face is too small: come closer.
    case faceTooFar
    /// The face is too large: move back.
    case faceTooClose
    /// The face is off-centre.
    case faceNotCentered
    /// The face is under-exposed.
    case tooDark
    /// The face is over-exposed.
    case tooBright
    /// The face is out of focus or moving fast.
    case blurry
    /// Look straight at the camera and keep still.
    case holdStill
    /// A motion was not performed as asked.
    case motionIssue
    /// A challenge was not completed in time.
    case challengeTimeout
    /// Lighting prevented a check (for example the reflection check).
    case lightingIssue
    /// The capture device or stream looks wrong.
    case deviceIssue
    /// A different person appeared during the session.
    case identityChanged
    /// The face does not match the reference photo or the document's portrait.
    case faceMismatch
    /// The identity document is missing, expired or not valid: use a valid one.
    case documentIssue
    /// Something else went wrong.
    case unknown
}
