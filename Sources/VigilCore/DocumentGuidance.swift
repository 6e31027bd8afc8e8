/// Why a photo of the document step was not taken as the session's document: what the person
/// should do next (`POST /v1/client/document`, and `guidance` in `POST /v1/documents/read`).
public enum DocumentGuidance: String, Codable, CaseIterable, Sendable {
    /// No machine-readable zone was found: show the page with the zone, whole, in the frame.
    case noDocument
    /// More than one zone was found: show one document at a time.
    case oneDocument
    /// The zone's characters are too small to read: bring the document closer.
    case tooFar
    /// A reflection hides part of the zone: tilt the document or move away from the light.
    case glare
    /// The zone is out of focus: hold the document a little further away and let the camera focus.
    case blurry
    /// The zone is smeared by movement: hold the phone and the document still.
    case holdStill
    /// The document is seen at a steep angle: hold the phone parallel to it.
    case notFlat
    /// A zone was found but not read with every check holding, for no cause seen: try again in even light.
    case unreadable
    /// The document is not of a type the session accepts.
    case typeNotAccepted
    /// The document has expired.
    case expired
    /// No portrait was found on the document, and the session compares it with the face.
    case noPortrait
}
