import Foundation
import VigilCore
import VigilHTTP
import VigilStore

/// Velocity by `ssid`: more than `maxFailures` failed sessions of one device hint within
/// `window` make the next session's policy one step stricter; the signal is stored with the
/// session and published in its result.
enum Velocity {
    static let window: TimeInterval = 180
    static let maxFailures = 5

    /// The signal for a new session of `ssid`, raising `policy` when it fires.
    static func assess(tenantId: String, ssid: String, policy: inout LivenessPolicy, _ context: ServerContext,
                       now: Date = Date()) throws(HTTPError) -> SessionRisk {
        let failed = try context.stored { () throws(StoreError) in
            try context.store.failedSessions(tenantId: tenantId, ssid: ssid, since: now.addingTimeInterval(-window))
        }
        var raised = false
        if failed > maxFailures, let stricter = policy.raised() {
            policy = stricter
            raised = true
            context.metrics.add("vigil_velocity_raised_total")
        }
        return SessionRisk(velocity: .init(failedSessions: failed, windowSeconds: Int(window), raised: raised))
    }
}
