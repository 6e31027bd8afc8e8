import Foundation
import Synchronization
import VigilCore

/// Admission for document reads, the node's longest piece of work (0.1 to 0.3 s of a core for a
/// 2 MP photo): they run on a lane of their own (`Router.Lane.background`), at most
/// `maxInFlight` on a node and one at a time for each caller (a session, or an API key for
/// one-off reads), and the processor time each takes is reported to frame admission, so that a
/// node that reads documents admits fewer face sessions. Decided on the headers, before a body
/// is read; what waits is bounded again by the lane's queue.
final class DocumentAdmission: Sendable {
    /// Reads waiting or running on a node: one reading, one waiting.
    static let maxInFlight = 2
    /// When a refused caller should send again (ms): about a read's time, and the page's pace.
    static let retryAfterMs = 1000

    private let reading = Mutex<Set<String>>([])
    /// Reads waiting or running on this node's lane; set once the HTTP server runs.
    private let load = Mutex<(@Sendable () -> Int)?>(nil)

    /// Tells admission how many reads wait or run.
    func measureLoad(_ depth: @escaping @Sendable () -> Int) { load.withLock { $0 = depth } }

    /// nil when `caller` may send a photo now; otherwise the milliseconds to wait.
    func admit(caller: String) -> Int? {
        let inFlight = load.withLock { $0 }?() ?? 0
        guard inFlight < Self.maxInFlight, !reading.withLock({ $0.contains(caller) }) else { return Self.retryAfterMs }
        return nil
    }

    /// Runs `read` as `caller`'s one read in flight, reporting its processor time to `frames`;
    /// nil (nothing run) when the caller has a read in flight already.
    func reading<T>(as caller: String, reportingTo frames: FrameAdmission, at now: Date, _ read: () throws -> T) rethrows -> T? {
        guard reading.withLock({ $0.insert(caller).inserted }) else { return nil }
        defer { reading.withLock { _ = $0.remove(caller) } }
        let started = ProcessorClock.threadMs()
        defer { frames.otherWork(ms: ProcessorClock.threadMs() - started, at: now) }
        return try read()
    }
}
