import Foundation
import VigilCore
import VigilStore

/// Velocity by `ssid`: more than `maxFailures` failed sessions of one device hint within
/// `window` make the next session's policy one step stricter; the signal is stored with the
/// session and published in its result. An SDK `ssid` (`<device id>.<integrity>`) counts its
/// device under every verdict, and a `flagged` verdict raises the policy one step too.
enum Velocity {
    static let window: TimeInterval = 180
    static let maxFailures = 5

    /// The signals for a new session of `ssid`, raising `policy` when they fire.
    static func assess(tenantId: String, ssid: String, policy: inout LivenessPolicy, _ context: ServerContext,
                       now: Date) throws(ServiceError) -> SessionRisk {
        let device = DeviceSessionData(ssid: ssid)
        let hints = device.map { d in DeviceSessionData.Integrity.allCases.map { DeviceSessionData(deviceId: d.deviceId, integrity: $0).ssid } } ?? [ssid]
        var failed = 0
        for hint in hints {
            failed += try context.stored { () throws(StoreError) in
                try context.store.failedSessions(tenantId: tenantId, ssid: hint, since: now.addingTimeInterval(-window))
            }
        }
        var raised = false
        if failed > maxFailures, let stricter = policy.raised() {
            policy = stricter
            raised = true
            context.metrics.add("vigil_velocity_raised_total")
        }
        if device?.integrity == .flagged, let stricter = policy.raised() {
            policy = stricter
            context.metrics.add("vigil_device_flagged_total")
        }
        return SessionRisk(velocity: .init(failedSessions: failed, windowSeconds: Int(window), raised: raised), deviceIntegrity: device?.integrity)
    }
}
