/// Why a photo of the document step was not taken as the session's document: what the person
/// should do next (`POST /v1/client/document`).
public enum DocumentGuidance: String, Codable, CaseIterable, Sendable {
    /// No machine-readable zone was found: show the page with the zone, whole, in the frame.
    case noDocument
    /// A zone was found but not read with every check holding: hold still, closer, in even light.
    case unreadable
    /// The document is not of a type the session accepts.
    case typeNotAccepted
    /// The document has expired.
    case expired
    /// No portrait was found on the document, and the session compares it with the face.
    case noPortrait
}
