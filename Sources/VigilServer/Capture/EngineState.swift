import Foundation
import VigilLiveness

/// The engine state a session record carries between frame batches, as JSON, so any process can
/// continue the session: the current attempt's engine, which attempt it is, and the documents
/// the document step refused and the photos it read.
struct EngineState: Codable {
    /// The stored bytes are missing or do not decode.
    enum Error: Swift.Error { case missing, undecodable }

    /// The current attempt's engine.
    var capture: CaptureAttempt.State
    /// Which attempt this is, from 1 to the policy's `maxAttempts`.
    var attempt: Int
    /// The current attempt's capture clock against arrival times (absent when not checked).
    var clock: CaptureClockCheck?
    /// A short fingerprint of each different document refused for what it is (its type not
    /// accepted, or expired): 24 bits of a hash over the session id and the document's number,
    /// enough to tell a session's few documents apart, too few to recover a number from.
    var refusedDocuments: [String]?
    /// Photos the document step has read so far (absent: none).
    var documentPhotos: Int?

    // `runner`: the key states stored by earlier versions use.
    private enum CodingKeys: String, CodingKey { case capture = "runner", attempt, clock, refusedDocuments, documentPhotos }

    var bytes: [UInt8] {
        // Encoding a value of plain numbers, strings and arrays does not fail.
        (try? JSONEncoder().encode(self)).map { [UInt8]($0) } ?? []
    }

    init(capture: CaptureAttempt.State, attempt: Int, clock: CaptureClockCheck? = nil, refusedDocuments: [String]? = nil, documentPhotos: Int? = nil) {
        self.capture = capture
        self.attempt = attempt
        self.clock = clock
        self.refusedDocuments = refusedDocuments
        self.documentPhotos = documentPhotos
    }

    init(_ bytes: [UInt8]?) throws(Error) {
        guard let bytes else { throw .missing }
        guard let state = try? JSONDecoder().decode(EngineState.self, from: Data(bytes)) else { throw .undecodable }
        self = state
    }
}
