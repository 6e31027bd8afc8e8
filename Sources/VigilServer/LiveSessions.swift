import Foundation
import VigilFace
import VigilLiveness

/// The engines of sessions being captured, in memory by session id. Frames of one session are
/// processed one at a time (its entry's lock); different sessions run in parallel.
final class LiveSessions: @unchecked Sendable {
    /// One session's engine.
    final class Entry: @unchecked Sendable {
        // Invariant: `runner` is only used with `lock` held.
        let lock = NSLock()
        var runner: LivenessRunner
        init(runner: LivenessRunner) { self.runner = runner }
    }

    // Invariant: `entries` is only touched with `lock` held.
    private let lock = NSLock()
    private var entries: [String: Entry] = [:]

    /// The entry of session `id`, made by `make` when there is none.
    func entry(_ id: String, make: () -> LivenessRunner) -> Entry {
        lock.lock()
        defer { lock.unlock() }
        if let entry = entries[id] { return entry }
        let entry = Entry(runner: make())
        entries[id] = entry
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
