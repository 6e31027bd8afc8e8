import Foundation
import VigilFace
import VigilLiveness
import VigilStore

/// The engines of sessions being captured, cached in memory by session id over the state the
/// store keeps. Frames of one session are processed one at a time (its entry's lock); different
/// sessions run in parallel.
final class LiveSessions: @unchecked Sendable {
    /// One session's current attempt (engine and capture clock), its number, and the record it
    /// was last stored with.
    final class Entry: @unchecked Sendable {
        // Invariant: `record`, `capture`, `attempt`, `refusedDocuments` and `documentPhotos` are
        // only used with `lock` held.
        let lock = NSLock()
        var record: SessionRecord
        var capture: CaptureAttempt
        var attempt: Int
        /// Fingerprints of the documents the document step refused (see `EngineState`).
        var refusedDocuments: [String]
        /// Photos the document step has read (`CaptureService.maxDocumentPhotos`).
        var documentPhotos: Int
        init(record: SessionRecord, capture: CaptureAttempt, attempt: Int, refusedDocuments: [String] = [], documentPhotos: Int = 0) {
            self.record = record
            self.capture = capture
            self.attempt = attempt
            self.refusedDocuments = refusedDocuments
            self.documentPhotos = documentPhotos
        }

        /// Starts the attempt over on `session` (a new plan): a fresh engine and capture clock.
        func restart(_ session: LivenessSession) {
            capture = CaptureAttempt(session: session, checksArrivals: capture.clock != nil)
        }

        /// What the store keeps of it.
        var state: EngineState {
            EngineState(runner: capture.runner.state, attempt: attempt, clock: capture.clock,
                        refusedDocuments: refusedDocuments.isEmpty ? nil : refusedDocuments, documentPhotos: documentPhotos == 0 ? nil : documentPhotos)
        }
    }

    // Invariant: `entries` is only touched with `lock` held.
    private let lock = NSLock()
    private var entries: [String: Entry] = [:]

    /// The entry of `record`'s session, made by `make` when there is none.
    func entry(_ record: SessionRecord, make: (SessionRecord) throws(EngineState.Error) -> Entry) throws(EngineState.Error) -> Entry {
        lock.lock()
        defer { lock.unlock() }
        if let entry = entries[record.id] { return entry }
        let entry = try make(record)
        entries[record.id] = entry
        return entry
    }

    /// Forgets session `id` (decided, cancelled, erased or expired).
    func remove(_ id: String) {
        lock.lock()
        entries[id] = nil
        lock.unlock()
    }

    /// Sessions with an engine in memory.
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return entries.count
    }
}
