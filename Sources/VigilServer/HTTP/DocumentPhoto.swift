import Foundation
import VigilCore
import VigilDocument
import VigilFace
import VigilHTTP
import VigilStore

/// `POST /v1/client/document`: a photo of the identity document in the session's document step
/// (`DocumentStep` holds its rules). Photos are never logged.
extension DeviceAPI {
    /// The largest document photo accepted (a 2 MP JPEG is 0.3-1 MB).
    static let maxDocumentBytes = 6 * 1024 * 1024

    /// What a document photo answers.
    struct DocumentAnswer: Encodable {
        /// Whether the photo became the session's document.
        let captured: Bool
        /// What to do next when it did not.
        let guidance: DocumentGuidance?
        /// The format read (`TD1`, `TD2`, `TD3`), when one was.
        let type: String?
        /// True when this refusal was the session's last allowed one: the session failed.
        var lockedOut: Bool? = nil
    }

    static func document(_ request: HTTPRequest, _ context: ServerContext) throws -> HTTPResponse {
        let record = try context.openDeviceSession(request)
        try requireJPEG(request, "a document photo")
        let outcome = try context.documentStep.take(record, jpeg: request.body) {
            try DocumentAPI.read(as: record.id, context) { try decodeJPEG(request, maxPixels: DocumentReader.maxPixels) }
        }
        return .json(DocumentAnswer(captured: outcome.captured, guidance: outcome.guidance, type: outcome.type, lockedOut: outcome.lockedOut ? true : nil),
                     headers: [("Cache-Control", "no-store")])
    }
}
