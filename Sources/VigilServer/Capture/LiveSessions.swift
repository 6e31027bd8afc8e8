import Foundation
import VigilFace
import VigilLiveness
import VigilStore

/// The engines of sessions being captured, cached in memory by session id over the state the
/// store keeps. Frames of one session are processed one at a time (its entry's lock); different
/// sessions run in parallel.
final class LiveSessions: @unchecked Sendable {
    /// One session's engine, its attempt number and the record it was last stored with.
    final class Entry: @unchecked Sendable {
        // Invariant: `record`, `runner`, `attempt` and `clock` are only used with `lock` held.
        let lock = NSLock()
        var record: SessionRecord
        var runner: LivenessRunner
        var attempt: Int
        var clock: CaptureClockCheck
        init(record: SessionRecord, runner: LivenessRunner, attempt: Int, clock: CaptureClockCheck = CaptureClockCheck()) {
            self.record = record
            self.runner = runner
            self.attempt = attempt
            self.clock = clock
        }

        /// Starts the attempt over on `session` (a new plan): a fresh engine and capture clock.
        func restart(_ session: LivenessSession) {
            runner = LivenessRunner(session: session, analyzer: runner.analyzer)
            clock = CaptureClockCheck()
        }

        /// What the store keeps of it.
        var state: EngineState { EngineState(runner: runner.state, attempt: attempt, clock: clock) }
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
