import Foundation
import Synchronization

/// Admission control for frames: this node takes on no more capture sessions than it can serve
/// at the page's frame rate, and sheds frames beyond its capacity, so that the sessions it has
/// admitted keep getting quick answers when more people arrive than it can serve.
///
/// Decided on a frame's headers, before its body is read or decoded. The capacity is frames a
/// second: configured, or measured from the time frames take (decode, analysis and the store
/// write) on this node's worker threads, less the processor time other work reports (document
/// reads), so it follows the load of everything else on the machine. Each admitted session may
/// take its share of it and no more. Per node: each node of a deployment admits against its own
/// cores.
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
    /// Weight of each new frame in the running mean of frame cost (a frame of `typicalFramePixels`;
    /// a smaller one weighs in proportion, so that tiny frames, cheap to analyse, cannot talk the
    /// node into admitting more sessions than real frames let it serve).
    static let smoothing = 0.05
    /// A frame as the page sends it (640x480).
    static let typicalFramePixels = 640.0 * 480
    /// How long other work's processor time counts against the capacity (the time constant of
    /// its decay, seconds).
    static let otherWorkWindow = 10.0
    /// The longest a frame may expect to wait for a worker: beyond it, it is shed on its headers
    /// at once rather than answered late (or shed after waiting, `maxFrameWait`).
    static let maxQueueMs = 50.0

    /// An admitted session: when its last frame came, and its own bucket of frames.
    private struct Share {
        var seen: Date
        var tokens: Double
        var refilledAt: Date
    }

    private struct State {
        var frameMs: Double
        var admitted: [String: Share] = [:]
        var tokens: Double
        var refilledAt: Date?
        /// Other work's processor time (ms), decayed to `otherWorkAt`.
        var otherWorkMs = 0.0
        var otherWorkAt: Date?
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

    /// Frames a second this node serves within its budget at `now`.
    func capacity(at now: Date = Date()) -> Double { state.withLock { capacity($0, at: now) } }

    /// Sessions admitted and not idle at `now`.
    func admittedSessions(at now: Date) -> Int {
        state.withLock { s in s.admitted.values.count { now.timeIntervalSince($0.seen) < Self.idleRelease } }
    }

    /// The decision for a frame of `sessionId` arriving at `now`.
    func admit(sessionId: String, at now: Date) -> Decision {
        let queued = queue.withLock { $0 }?() ?? 0
        return state.withLock { s in
            let capacity = capacity(s, at: now)
            refill(&s, capacity: capacity, at: now)
            if s.admitted[sessionId] == nil {
                s.admitted = s.admitted.filter { now.timeIntervalSince($0.value.seen) < Self.idleRelease }
                // One session is always admitted, however slow the node.
                guard s.admitted.isEmpty || Double(s.admitted.count + 1) * Self.sessionFrameRate <= capacity else {
                    // Room comes when a session finishes or goes idle: a couple of seconds at least.
                    return .refuseSession(retryAfterMs: 2000)
                }
            }
            // Its share: the capacity split between the sessions admitted now, a second of it at
            // once (a client catching up after a wait sends a few frames back to back).
            let share = capacity / Double(max(1, s.admitted.count + (s.admitted[sessionId] == nil ? 1 : 0)))
            var own = s.admitted[sessionId] ?? Share(seen: now, tokens: max(1, share), refilledAt: now)
            own.tokens = min(max(1, share), own.tokens + max(0, now.timeIntervalSince(own.refilledAt)) * share)
            own.refilledAt = now
            own.seen = now
            defer { s.admitted[sessionId] = own }
            let expectedWait = Double(queued) * s.frameMs / Double(threads)
            guard expectedWait <= Self.maxQueueMs else { return .shed(retryAfterMs: min(1000, max(100, Int(expectedWait.rounded(.up))))) }
            guard own.tokens >= 1 else {
                let waitMs = Int(((1 - own.tokens) / share * 1000).rounded(.up))
                return .shed(retryAfterMs: min(1000, max(100, waitMs)))
            }
            guard s.tokens >= 1 else {
                let waitMs = Int(((1 - s.tokens) / capacity * 1000).rounded(.up))
                return .shed(retryAfterMs: min(1000, max(100, waitMs)))
            }
            s.tokens -= 1
            own.tokens -= 1
            return .accept
        }
    }

    /// Gives up `sessionId`'s place (its capture has ended).
    func release(sessionId: String) {
        state.withLock { _ = $0.admitted.removeValue(forKey: sessionId) }
    }

    /// Records what a frame decoded and analysed cost on its thread (ms), which measures the
    /// capacity; a frame of fewer than `typicalFramePixels` weighs in proportion.
    func served(frameMs: Double, pixels: Int) {
        guard frameMs.isFinite, frameMs > 0, pixels > 0 else { return }
        let weight = Self.smoothing * min(1, Double(pixels) / Self.typicalFramePixels)
        state.withLock { $0.frameMs += (frameMs - $0.frameMs) * weight }
    }

    /// Records processor time (ms) other work (a document read) took from the cores that serve
    /// frames: for `otherWorkWindow` seconds or so the node admits fewer sessions.
    func otherWork(ms: Double, at now: Date) {
        guard ms.isFinite, ms > 0 else { return }
        state.withLock { s in
            s.otherWorkMs = Self.decayed(s, to: now) + ms
            s.otherWorkAt = now
        }
    }

    private static func decayed(_ s: State, to now: Date) -> Double {
        guard let at = s.otherWorkAt else { return 0 }
        return s.otherWorkMs * exp(-max(0, now.timeIntervalSince(at)) / otherWorkWindow)
    }

    private func capacity(_ s: State, at now: Date) -> Double {
        if let fixedCapacity { return fixedCapacity }
        // Thread-milliseconds a second left once other work's recent share is taken out; frames
        // keep at least a quarter of them (documents have one lower-priority thread of their own).
        let other = Self.decayed(s, to: now) / Self.otherWorkWindow
        return max(Double(threads) * 250, Double(threads) * 1000 - other) / s.frameMs * Self.utilisation
    }

    /// Tokens for a quarter of a second of frames, at least one a thread.
    private static func burst(_ capacity: Double) -> Double { max(1, capacity / 4) }

    private func refill(_ s: inout State, capacity: Double, at now: Date) {
        let elapsed = s.refilledAt.map { max(0, now.timeIntervalSince($0)) } ?? 0
        s.tokens = min(Self.burst(capacity), s.tokens + elapsed * capacity)
        s.refilledAt = now
    }
}
