import Foundation
import VigilCore
import VigilDocument
import VigilFace
import VigilHTTP
import VigilStore

/// `POST /v1/client/document`: a photo of the identity document in the session's document step.
/// The first photo whose zone is read with every check holding, of an accepted type, not expired
/// and (when the face is compared) with a portrait, becomes the session's document; any other is
/// answered with what to do next. Photos are never logged.
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
        let record = try context.deviceSession(request)
        guard !record.status.isFinal else { throw CaptureService.finished(record) }
        guard let step = record.policy.document else {
            throw HTTPError(.documentNotRequested, "this session's policy has no document step")
        }
        guard record.document == nil else { throw HTTPError(.documentAlreadyCaptured, "the session's document was captured already") }
        try requireJPEG(request, "a document photo")
        // Every photo counts, read or not: a session's photos are bounded.
        if try context.capture.countDocumentPhoto(record) {
            return .json(DocumentAnswer(captured: false, guidance: .unreadable, type: nil, lockedOut: true), headers: [("Cache-Control", "no-store")])
        }
        let (read, page, image) = try DocumentAPI.read(as: record.id, context) {
            try decodeJPEG(request, maxPixels: DocumentReader.maxPixels)
        }
        context.metrics.add("vigil_document_photos_total")
        func answer(_ guidance: DocumentGuidance, lockedOut: Bool = false) -> HTTPResponse {
            HTTPResponse.json(DocumentAnswer(captured: false, guidance: guidance, type: read.type, lockedOut: lockedOut ? true : nil),
                              headers: [("Cache-Control", "no-store")])
        }
        // A document refused for what it is counts against the session's attempts.
        func refused(_ guidance: DocumentGuidance) throws(ServiceError) -> HTTPResponse {
            answer(guidance, lockedOut: try context.capture.refuseDocument(record, read))
        }
        guard read.checks.readable else { return answer(read.guidance ?? .unreadable) }
        guard read.checks.checkDigits, read.checks.dates, read.checks.fields else { return answer(.unreadable) }
        guard step.accepts(format: read.type ?? "") else { return try refused(.typeNotAccepted) }
        guard !read.checks.expired else { return try refused(.expired) }
        // The portrait is looked for only where the live face is compared with it.
        var portrait: FaceDescriptor?
        if step.matchFace {
            portrait = try page.flatMap { page in try context.analyzers().withAnalyzer { DocumentPortrait.descriptor(in: image, page: page, analyzer: $0) } }
            guard portrait != nil else { return answer(.noPortrait) }
        }
        let kept = DocumentImage(jpeg: request.body, portrait: portrait?.bytes,
                                 deleteAfter: context.clock.now.addingTimeInterval(context.configuration.retention))
        try context.capture.captureDocument(record, read, image: kept)
        return .json(DocumentAnswer(captured: true, guidance: nil, type: read.type), headers: [("Cache-Control", "no-store")])
    }
}
