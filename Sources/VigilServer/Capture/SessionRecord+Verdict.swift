import Foundation
import VigilCore
import VigilStore

extension SessionRecord {
    /// The stored result payload, once the session is decided.
    var verdict: VerdictPayload? { result.flatMap { try? JSONDecoder().decode(VerdictPayload.self, from: Data($0)) } }
}
