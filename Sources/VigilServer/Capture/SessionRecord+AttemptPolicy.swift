import VigilCore
import VigilStore

extension SessionRecord {
    /// The policy each attempt runs: the tenant's, or its motion-only fallback once declined.
    var attemptPolicy: LivenessPolicy {
        risk?.reflectionDeclined == true ? policy.motionOnly() ?? policy : policy
    }
}
