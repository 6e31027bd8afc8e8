import Foundation
import VigilLiveness

/// The engine state a session record carries between frame batches, as JSON, so any process can
/// continue the session: the current attempt's engine and which attempt it is.
struct EngineState: Codable {
    /// The stored bytes are missing or do not decode.
    enum Error: Swift.Error { case missing, undecodable }

    /// The current attempt's engine.
    var runner: LivenessRunner.State
    /// Which attempt this is, from 1 to the policy's `maxAttempts`.
    var attempt: Int
    /// The current attempt's capture clock against arrival times (absent when not checked).
    var clock: CaptureClockCheck?

    var bytes: [UInt8] {
        // Encoding a value of plain numbers, strings and arrays does not fail.
        (try? JSONEncoder().encode(self)).map { [UInt8]($0) } ?? []
    }

    init(runner: LivenessRunner.State, attempt: Int, clock: CaptureClockCheck? = nil) {
        self.runner = runner
        self.attempt = attempt
        self.clock = clock
    }

    init(_ bytes: [UInt8]?) throws(Error) {
        guard let bytes else { throw .missing }
        guard let state = try? JSONDecoder().decode(EngineState.self, from: Data(bytes)) else { throw .undecodable }
        self = state
    }
}
