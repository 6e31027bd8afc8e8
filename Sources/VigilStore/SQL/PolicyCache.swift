import Foundation
import Synchronization
import VigilCore

/// Decoded policies by their stored JSON: sessions share a handful of policies, and decoding one
/// on every token lookup was a large part of a status poll.
final class PolicyCache: Sendable {
    static let shared = PolicyCache()
    private let decoded = Mutex<[String: LivenessPolicy]>([:])

    func policy(_ json: String) throws(StoreError) -> LivenessPolicy {
        if let known = decoded.withLock({ $0[json] }) { return known }
        let policy: LivenessPolicy
        do {
            policy = try JSONDecoder().decode(LivenessPolicy.self, from: Data(json.utf8))
        } catch {
            throw .corrupt("session policy: \(error)")
        }
        decoded.withLock { cache in
            if cache.count >= 1024 { cache.removeAll() }
            cache[json] = policy
        }
        return policy
    }
}
