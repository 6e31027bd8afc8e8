import Foundation
import VigilLiveness

/// The engine state a session record carries between frame batches (`LivenessRunner.State` as
/// JSON), so any process can continue the session.
enum EngineState {
    /// The stored bytes are missing or do not decode.
    enum Error: Swift.Error { case missing, undecodable }

    static func encode(_ state: LivenessRunner.State) -> [UInt8] {
        // Encoding a value of plain numbers, strings and arrays does not fail.
        (try? JSONEncoder().encode(state)).map { [UInt8]($0) } ?? []
    }

    static func decode(_ bytes: [UInt8]?) throws(Error) -> LivenessRunner.State {
        guard let bytes else { throw .missing }
        guard let state = try? JSONDecoder().decode(LivenessRunner.State.self, from: Data(bytes)) else { throw .undecodable }
        return state
    }
}
