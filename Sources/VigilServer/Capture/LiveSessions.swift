import Foundation
import VigilCore
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
        /// Photos the document step has read (`DocumentStep.maxDocumentPhotos`).
        var documentPhotos: Int
        init(record: SessionRecord, capture: CaptureAttempt, attempt: Int, refusedDocuments: [String] = [], documentPhotos: Int = 0) {
            self.record = record
            self.capture = capture
            self.attempt = attempt
            self.refusedDocuments = refusedDocuments
            self.documentPhotos = documentPhotos
        }

        /// Starts the attempt over on `session` (a new plan): a fresh engine and capture clock.
        func restart(_ engine: LivenessEngine) {
            capture = CaptureAttempt(engine: engine, checksArrivals: capture.clock != nil)
        }

        /// What the store keeps of it.
        var state: EngineState {
            EngineState(capture: capture.state, attempt: attempt, clock: capture.clock,
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

    // MARK: Running an engine

    /// Runs `body` on the session's engine, its lock held, after bringing the entry up to date:
    /// an entry older than `record` (another process went on with the session) is rebuilt from
    /// the stored state, and a session that ended meanwhile is refused.
    func withEngine<T>(_ record: SessionRecord, _ context: ServerContext, _ body: (Entry) throws(ServiceError) -> T) throws(ServiceError) -> T {
        let make = { (record: SessionRecord) throws(EngineState.Error) -> Entry in
            let state = try EngineState(record.engineState)
            let clock = context.configuration.checkCaptureClock ? state.clock ?? CaptureClockCheck() : nil
            return Entry(record: record, capture: CaptureAttempt(state: state.capture, clock: clock), attempt: state.attempt,
                                      refusedDocuments: state.refusedDocuments ?? [], documentPhotos: state.documentPhotos ?? 0)
        }
        let entry: Entry
        do {
            entry = try self.entry(record, make: make)
        } catch {
            throw unreadable(record, error)
        }
        entry.lock.lock()
        defer { entry.lock.unlock() }
        if record.version > entry.record.version {
            do {
                let reloaded = try make(record)
                entry.capture = reloaded.capture
                entry.attempt = reloaded.attempt
                entry.refusedDocuments = reloaded.refusedDocuments
                entry.documentPhotos = reloaded.documentPhotos
                entry.record = record
            } catch {
                throw unreadable(record, error)
            }
        }
        guard !entry.record.status.isFinal else { throw SessionLifecycle.finished(entry.record) }
        return try body(entry)
    }

    private func unreadable(_ record: SessionRecord, _ error: EngineState.Error) -> ServiceError {
        remove(record.id)
        return error == .missing ? ServiceError(.sessionFinished, "the session has no engine state")
            : ServiceError(.engineStateCorrupt, "the session's stored engine state cannot be read")
    }

    /// Stores `record` with the entry's engine state, on a conflict (the session was cancelled,
    /// erased or expired meanwhile) dropping the entry and answering with the session's state as stored.
    func save(_ entry: Entry, _ record: SessionRecord, personalData: PersonalDataChange, frameHash: FrameHash? = nil,
              _ context: ServerContext) throws(ServiceError) {
        var record = record
        record.engineState = entry.state.bytes
        record.updatedAt = context.clock.now
        do {
            entry.record = try context.store.updateSession(record, enqueue: nil, personalData: personalData, frameHash: frameHash)
        } catch .staleVersion {
            remove(record.id)
            let current = try context.stored { () throws(StoreError) in try context.store.session(id: record.id, tenantId: record.tenantId) }
            if let current, current.status.isFinal { throw SessionLifecycle.finished(current) }
            throw ServiceError(.concurrentUpdate, "the session changed meanwhile; retry")
        } catch {
            throw ServiceError(.storageUnavailable, "the database could not complete the request", cause: "\(error)")
        }
    }
}
