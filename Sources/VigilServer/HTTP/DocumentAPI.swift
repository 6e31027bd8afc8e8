import Foundation
import VigilCore
import VigilDocument
import VigilFace
import VigilHTTP

/// `POST /v1/documents/read`: a one-off reading of an identity document's machine-readable zone
/// with an API key. Nothing is stored or logged of it.
enum DocumentAPI {
    /// The reader, with OCR-B templates from Debian's `fonts-ocr-b`; nil where the font is missing.
    static let reader: DocumentReader? = try? DocumentReader()

    static func register(_ router: inout Router, _ context: ServerContext) {
        router.add("POST", "/v1/documents/read", bodyLimit: PhotoUpload.bodyLimitForOne, lane: .background,
                   admit: { try context.admitDocument($0, apiKey: true) }) { try read($0, context) }
    }

    static func read(_ request: HTTPRequest, _ context: ServerContext) throws -> HTTPResponse {
        _ = try context.tenant(request)
        let body = try context.decode(DocumentReadRequest.self, from: request.body, fields: DocumentReadRequest.fields)
        let (result, _, _) = try read(as: Identifiers.hash(request.bearerToken ?? ""), context) {
            try PhotoUpload.image(body.image, field: "image", maxPixels: DocumentReader.maxPixels)
        }
        context.metrics.add("vigil_documents_read_total")
        return .json(result, headers: [("Cache-Control", "no-store")])
    }

    /// The photo `decode` gives, decoded and read as `caller`'s one read in flight
    /// (`DocumentAdmission`), judged today (UTC): what it says, the photo, and where its page
    /// lies when it was read. 503 `server_busy` when the caller has a read in flight already.
    static func read(as caller: String, _ context: ServerContext, _ decode: () throws -> Image) throws -> (DocumentResult, DocumentPage?, Image) {
        guard let reader else { throw HTTPError(.notReady, "this server cannot read documents: the OCR-B font (Debian: fonts-ocr-b) is missing") }
        let read = try context.documents.reading(as: caller, reportingTo: context.admission, at: context.clock.now) { () throws -> (DocumentResult, DocumentPage?, Image) in
            let image = try decode()
            let today = MRZDate.today
            let reading = reader.read(PageImage(rgb: image.rgb, width: image.width, height: image.height), today: today)
            return (DocumentResult(reading, photo: image, today: today), reading.page, image)
        }
        guard let read else {
            throw ServerContext.busy(DocumentAdmission.retryAfterMs, "a document photo of yours is being read; send the next once it is answered")
        }
        return read
    }
}
