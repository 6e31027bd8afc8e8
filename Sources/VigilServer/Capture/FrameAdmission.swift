import Foundation
import Synchronization

/// Admission control for frames: this node takes on no more capture sessions than it can serve
/// at the page's frame rate, and sheds frames beyond its capacity, so that the sessions it has
/// admitted keep getting quick answers when more people arrive than it can serve.
///
/// Decided on a frame's headers, before its body is read or decoded. The capacity is frames a
/// second: configured, or measured from the time frames take (decode, analysis and the store
/// write) on this node's worker threads, so it follows the load of everything else on the machine.
/// Per node: each node of a deployment admits against its own cores.
final class FrameAdmission: Sendable {
    /// What to do with a frame.
    enum Decision: Equatable {
        /// Serve it.
        case accept
        /// A session not yet admitted waits: its first frames are refused until there is room.
        case refuseSession(retryAfterMs: Int)
        /// An admitted session's frame beyond the node's capacity, or that would wait longer
        /// than `maxQueueMs` for a worker: dropped unread, sent again later.
        case shed(retryAfterMs: Int)
    }

    /// Frames a second a session uploads (the page's most).
    static let sessionFrameRate = 10.0
    /// Share of the measured capacity that is admitted: the rest absorbs bursts and descriptors.
    static let utilisation = 0.85
    /// A session without a frame for this long gives up its place.
    static let idleRelease: TimeInterval = 5
    /// Frame cost assumed until frames have been measured (ms on one thread).
    static let initialFrameMs = 10.0
    /// Weight of each new frame in the running mean of frame cost.
    static let smoothing = 0.05
    /// The longest a frame may expect to wait for a worker: beyond it, it is shed on its headers
    /// at once rather than answered late (or shed after waiting, `maxFrameWait`).
    static let maxQueueMs = 50.0

    private struct State {
        var frameMs: Double
        var admitted: [String: Date] = [:]
        var tokens: Double
        var refilledAt: Date?
    }

    private let threads: Int
    private let fixedCapacity: Double?
    private let state: Mutex<State>
    /// Frames (and other offloaded requests) waiting for a worker; set once the HTTP server runs.
    private let queue = Mutex<(@Sendable () -> Int)?>(nil)

    /// Tells admission how many requests wait for a worker.
    func measureQueue(_ depth: @escaping @Sendable () -> Int) { queue.withLock { $0 = depth } }

    /// Admission for `threads` frame-serving worker threads; `capacity` (frames a second) fixes the
    /// capacity instead of measuring it.
    init(threads: Int, capacity: Double? = nil) {
        self.threads = max(1, threads)
        fixedCapacity = capacity
        let initial = capacity ?? Double(max(1, threads)) * 1000 / Self.initialFrameMs * Self.utilisation
        state = Mutex(State(frameMs: Self.initialFrameMs, tokens: Self.burst(initial)))
    }

    /// Frames a second this node serves within its budget.
    var capacity: Double { state.withLock { capacity($0) } }

    /// Sessions admitted and not idle at `now`.
    func admittedSessions(at now: Date) -> Int {
        state.withLock { s in s.admitted.values.count { now.timeIntervalSince($0) < Self.idleRelease } }
    }

    /// The decision for a frame of `sessionId` arriving at `now`.
    func admit(sessionId: String, at now: Date) -> Decision {
        let queued = queue.withLock { $0 }?() ?? 0
        return state.withLock { s in
            let capacity = capacity(s)
            refill(&s, capacity: capacity, at: now)
            if s.admitted[sessionId] == nil {
                s.admitted = s.admitted.filter { now.timeIntervalSince($0.value) < Self.idleRelease }
                // One session is always admitted, however slow the node.
                guard s.admitted.isEmpty || Double(s.admitted.count + 1) * Self.sessionFrameRate <= capacity else {
                    // Room comes when a session finishes or goes idle: a couple of seconds at least.
                    return .refuseSession(retryAfterMs: 2000)
                }
            }
            s.admitted[sessionId] = now
            let expectedWait = Double(queued) * s.frameMs / Double(threads)
            guard expectedWait <= Self.maxQueueMs else { return .shed(retryAfterMs: min(1000, max(100, Int(expectedWait.rounded(.up))))) }
            guard s.tokens >= 1 else {
                let waitMs = Int(((1 - s.tokens) / capacity * 1000).rounded(.up))
                return .shed(retryAfterMs: min(1000, max(100, waitMs)))
            }
            s.tokens -= 1
            return .accept
        }
    }

    /// Gives up `sessionId`'s place (its capture has ended).
    func release(sessionId: String) {
        state.withLock { _ = $0.admitted.removeValue(forKey: sessionId) }
    }

    /// Records what a served frame cost on its thread (ms), which measures the capacity.
    func served(frameMs: Double) {
        guard frameMs.isFinite, frameMs > 0 else { return }
        state.withLock { $0.frameMs += (frameMs - $0.frameMs) * Self.smoothing }
    }

    private func capacity(_ s: State) -> Double {
        fixedCapacity ?? Double(threads) * 1000 / s.frameMs * Self.utilisation
    }

    /// Tokens for a quarter of a second of frames, at least one a thread.
    private static func burst(_ capacity: Double) -> Double { max(1, capacity / 4) }

    private func refill(_ s: inout State, capacity: Double, at now: Date) {
        let elapsed = s.refilledAt.map { max(0, now.timeIntervalSince($0)) } ?? 0
        s.tokens = min(Self.burst(capacity), s.tokens + elapsed * capacity)
        s.refilledAt = now
    }
}
