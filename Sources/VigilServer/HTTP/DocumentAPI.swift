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
        router.add("POST", "/v1/documents/read", bodyLimit: PhotoUpload.bodyLimitForOne, offloaded: true,
                   admit: { try context.admitAPIKey($0) }) { try read($0, context) }
    }

    static func read(_ request: HTTPRequest, _ context: ServerContext) throws -> HTTPResponse {
        _ = try context.tenant(request)
        let body = try context.decode(DocumentReadRequest.self, from: request.body, fields: DocumentReadRequest.fields)
        let image = try PhotoUpload.image(body.image, field: "image", maxPixels: DocumentReader.maxPixels)
        let (result, _) = try read(image)
        context.metrics.add("vigil_documents_read_total")
        return .json(result, headers: [("Cache-Control", "no-store")])
    }

    /// What the document on `image` reads, judged today (UTC), and where its page lies when it
    /// was read.
    static func read(_ image: Image) throws(HTTPError) -> (DocumentResult, DocumentPage?) {
        guard let reader else { throw HTTPError(.notReady, "this server cannot read documents: the OCR-B font (Debian: fonts-ocr-b) is missing") }
        let today = MRZDate.today
        let reading = reader.read(PageImage(rgb: image.rgb, width: image.width, height: image.height), today: today)
        return (DocumentResult(reading, photo: image, today: today), reading.page)
    }
}
