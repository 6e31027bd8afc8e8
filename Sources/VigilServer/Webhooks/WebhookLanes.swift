import Foundation
import Synchronization
import VigilStore

/// The deliveries in flight: at most `perTenant` of one tenant and `total` in all, each on its
/// own thread, so that one tenant's slow endpoint (up to the 10 s timeout an attempt) holds up
/// neither other tenants' webhooks nor the worker's other steps. What is not taken stays in the
/// outbox, which is the queue: bounded by the store, not by memory.
final class WebhookLanes: Sendable {
    /// Deliveries of one tenant in flight at once.
    static let perTenant = 2
    /// Deliveries in flight at once.
    static let total = 16

    private struct State {
        var byTenant: [String: Int] = [:]
        var ids: Set<String> = []
    }
    private let state = Mutex(State())

    /// Tenants with no free lane (left out when the worker reads due deliveries).
    /// Deliveries under way.
    var inFlight: Int { state.withLock { $0.ids.count } }

    var fullTenants: Set<String> {
        state.withLock { s in Set(s.byTenant.filter { $0.value >= Self.perTenant }.keys) }
    }

    /// Runs `work` for `delivery` on its own thread unless it is in flight already or there is no
    /// free lane for it; whether it started. (A due list read before a delivery finished may name
    /// it again: `work` claims it in the store first, which then fails.)
    @discardableResult
    func start(_ delivery: WebhookDelivery, _ work: @escaping @Sendable () -> Void) -> Bool {
        let taken = state.withLock { s -> Bool in
            guard !s.ids.contains(delivery.id), s.ids.count < Self.total,
                  s.byTenant[delivery.tenantId, default: 0] < Self.perTenant else {
                return false
            }
            s.ids.insert(delivery.id)
            s.byTenant[delivery.tenantId, default: 0] += 1
            return true
        }
        guard taken else { return false }
        Thread.detachNewThread { [self] in
            work()
            state.withLock { s in
                s.ids.remove(delivery.id)
                s.byTenant[delivery.tenantId, default: 1] -= 1
                if s.byTenant[delivery.tenantId] == 0 { s.byTenant[delivery.tenantId] = nil }
            }
        }
        return true
    }

    /// Waits until nothing is in flight, or `timeout` passed.
    func drain(timeout: TimeInterval) {
        let deadline = Date().addingTimeInterval(timeout)
        while state.withLock({ !$0.ids.isEmpty }), Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
    }
}
