import Foundation
import VigilCore
import VigilFace

/// One attempt's frame loop, the same in the server, the synthetic evaluation and
/// `vigil liveness`, so that all three measure the decision the server signs: each frame is
/// analysed and observed, its arrival goes to the capture clock, and once the motions are done
/// the reflection sequence is scheduled `reflectionNoticeMs` after that frame.
public struct CaptureAttempt {
    /// How long after the frame that finished the motions the reflection colours start: the
    /// page announces the flashes for about a second before they begin.
    public static let reflectionNoticeMs = 1000

    /// Face analysis and the engine.
    public var runner: LivenessRunner
    /// The capture clock against arrival times; nil when arrivals are not checked.
    public private(set) var clock: CaptureClockCheck?

    /// A new attempt on `session`; `checksArrivals` keeps a capture clock for `captureClock`.
    public init(session: LivenessSession, checksArrivals: Bool) {
        runner = LivenessRunner(session: session)
        clock = checksArrivals ? CaptureClockCheck() : nil
    }

    /// An attempt continuing from a persisted runner state and clock.
    public init(runner: LivenessRunner.State, clock: CaptureClockCheck?) {
        self.runner = LivenessRunner(state: runner)
        self.clock = clock
    }

    /// The engine.
    public var session: LivenessSession { runner.session }

    /// Analyses a frame captured at `captureMs` (the page's clock) that reached the server at
    /// `arrival` (when known) with `analyzer`, and schedules the reflection sequence when the
    /// motions are done.
    public mutating func process(_ image: Image, captureMs: Int, arrival: Date?, contentHash: UInt64, with analyzer: FaceAnalyzer) -> TrackerUpdate {
        let update = runner.process(image, timestampMs: captureMs, contentHash: contentHash, with: analyzer)
        if let arrival { clock?.observe(captureMs: captureMs, arrival: arrival) }
        if runner.session.reflectionDue { runner.startReflection(atMs: captureMs + Self.reflectionNoticeMs) }
        return update
    }

    /// The one decision on the frames so far, with the capture clock and `evidence`.
    public func decide(evidence: SessionEvidence = SessionEvidence()) -> LivenessDecision {
        var evidence = evidence
        evidence.captureClock = clock
        return runner.decide(evidence: evidence)
    }
}
