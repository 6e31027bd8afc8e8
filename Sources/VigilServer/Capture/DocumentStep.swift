import Foundation
import VigilCore
import VigilDocument
import VigilFace
import VigilLiveness
import VigilStore

/// A session's document step: which photo's reading becomes the session's document, what the
/// person is told about the others, and the bounds on both (photos read, documents refused).
struct DocumentStep {
    let context: ServerContext

    /// What one photo did.
    struct Outcome {
        /// Whether the photo became the session's document.
        let captured: Bool
        /// What to do next when it did not.
        let guidance: DocumentGuidance?
        /// The format read (`TD1`, `TD2`, `TD3`, `MRVA`, `MRVB`), when one was.
        let type: String?
        /// Whether this photo's refusal was the session's last allowed one: the session failed.
        let lockedOut: Bool
    }

    /// One photo of the document (`jpeg` as uploaded), read by `read` (decoded and read, with
    /// where its page lies): the first whose zone is read with every check holding, of a type
    /// the policy accepts, not expired and (when the face is compared) with a portrait, becomes
    /// the session's document; any other is answered with what to do next.
    func take(_ record: SessionRecord, jpeg: [UInt8], read: () throws -> (DocumentResult, DocumentPage?, Image)) throws -> Outcome {
        guard let step = record.policy.document else {
            throw ServiceError(.documentNotRequested, "this session's policy has no document step")
        }
        guard record.document == nil else { throw ServiceError(.documentAlreadyCaptured, "the session's document was captured already") }
        // Every photo counts, read or not: a session's photos are bounded.
        if try countPhoto(record) { return Outcome(captured: false, guidance: .unreadable, type: nil, lockedOut: true) }
        let (document, page, image) = try read()
        context.metrics.add("vigil_document_photos_total")
        func answer(_ guidance: DocumentGuidance, lockedOut: Bool = false) -> Outcome {
            Outcome(captured: false, guidance: guidance, type: document.type, lockedOut: lockedOut)
        }
        // A document refused for what it is counts against the session's attempts.
        func refused(_ guidance: DocumentGuidance) throws(ServiceError) -> Outcome {
            answer(guidance, lockedOut: try refuse(record, document))
        }
        guard document.checks.readable else { return answer(document.guidance ?? .unreadable) }
        guard document.checks.checkDigits, document.checks.dates, document.checks.fields else { return answer(.unreadable) }
        guard step.accepts(format: document.type ?? "") else { return try refused(.typeNotAccepted) }
        guard !document.checks.expired else { return try refused(.expired) }
        // The portrait is looked for only where the live face is compared with it.
        var portrait: FaceDescriptor?
        if step.matchFace {
            portrait = try page.flatMap { page in try context.analyzers().withAnalyzer { DocumentPortrait.descriptor(in: image, page: page, analyzer: $0) } }
            guard portrait != nil else { return answer(.noPortrait) }
        }
        let kept = DocumentImage(jpeg: jpeg, portrait: portrait?.bytes, deleteAfter: context.clock.now.addingTimeInterval(context.configuration.retention))
        try captureDocument(record, document, image: kept)
        return Outcome(captured: true, guidance: nil, type: document.type, lockedOut: false)
    }

    /// Takes `document` as the session's document, read from `image` (stored as personal data).
    private func captureDocument(_ record: SessionRecord, _ document: DocumentResult, image: DocumentImage) throws(ServiceError) {
        try context.capture.change(record, personalData: .storeDocumentImage(image)) { (next, _) throws(ServiceError) in
            guard next.document == nil else { throw ServiceError(.documentAlreadyCaptured, "the session's document was captured already") }
            next.document = document
            context.metrics.add("vigil_documents_captured_total")
        }
    }

    /// The most photos a session's document step reads, whether they read or not: about two
    /// minutes at the capture page's pace of one a second, plenty for a person, and a bound on
    /// what one session token can make the node read.
    static let maxPhotos = 120

    /// Counts a photo of the document step before it is read. The one past `maxPhotos`
    /// is not read: it fails the session, locked out, and answers true.
    private func countPhoto(_ record: SessionRecord) throws(ServiceError) -> Bool {
        try context.live.withEngine(record, context) { (entry) throws(ServiceError) in
            entry.documentPhotos += 1
            guard entry.documentPhotos > Self.maxPhotos else {
                try context.live.save(entry, entry.record, personalData: .keep, context)
                return false
            }
            let exhausted = CheckResult(passed: false, score: 0, feedback: .documentIssue, reason: "document_photos_exhausted")
            let decision = LivenessDecision.decide(challenges: entry.capture.engine.tracker.challenges, checks: ["document": exhausted],
                                                   guidance: [:], frames: 0)
            entry.record = try context.lifecycle.complete(entry.record, decision, attempt: entry.record.policy.maxAttempts)
            return true
        }
    }

    /// Counts a document the step refused for what it is (a type the policy does not accept, or
    /// expired), each different document once. `maxAttempts` bounds the document step too: the
    /// refusal of that many different documents fails the session, locked out; true then. The
    /// same document shown again is not counted: the person is told why, and may go on until
    /// the session expires.
    private func refuse(_ record: SessionRecord, _ document: DocumentResult) throws(ServiceError) -> Bool {
        try context.live.withEngine(record, context) { (entry) throws(ServiceError) in
            let number = [document.documentCode, document.issuingState, document.documentNumber].map { $0 ?? "" }.joined(separator: "<")
            let fingerprint = String(Identifiers.hash("\(record.id)|\(number)").prefix(6))
            guard !entry.refusedDocuments.contains(fingerprint) else { return false }
            entry.refusedDocuments.append(fingerprint)
            context.metrics.add("vigil_documents_refused_total")
            let maxAttempts = entry.record.policy.maxAttempts
            if entry.refusedDocuments.count >= maxAttempts {
                let refused = CheckResult(passed: false, score: 0, feedback: .documentIssue, reason: "documents_refused")
                let decision = LivenessDecision.decide(challenges: entry.capture.engine.tracker.challenges, checks: ["document": refused],
                                                       guidance: [:], frames: 0)
                entry.record = try context.lifecycle.complete(entry.record, decision, attempt: maxAttempts)
                return true
            }
            try context.live.save(entry, entry.record, personalData: .keep, context)
            return false
        }
    }
}
