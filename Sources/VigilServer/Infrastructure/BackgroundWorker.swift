import Foundation
import Synchronization
import VigilCore
import VigilStore

/// Once a second: reads the signing keys again when due, marks sessions past `expiresAt` expired
/// (queuing `session.expired`), runs the retention purge (`SessionLifecycle.purge`, and
/// `reclaim` within `reclaimInterval`), deletes idempotent answers past a day, then starts due
/// webhooks from the outbox
/// (`WebhookDispatcher`, on `WebhookLanes`: one tenant's slow endpoint holds up no one else).
/// Everything it does is in the store, so a restart loses nothing.
final class BackgroundWorker: Sendable {
    private let context: ServerContext
    /// Webhook deliveries in flight, per tenant.
    private let webhooks = WebhookLanes()
    private let running = Mutex(true)
    private let stopped = DispatchSemaphore(value: 0)
    /// How often, while deliveries are under way, freed lanes look for the next due delivery (s).
    static let backlogPoll = 0.05
    /// The least time between two reclaims after purges (s): PostgreSQL's reclaim vacuums and
    /// forces two checkpoints, and its own default is one checkpoint every 5 minutes.
    static let reclaimInterval: TimeInterval = 300
    /// Whether a purge removed something not reclaimed yet, and when the last reclaim ran.
    private let reclaim = Mutex<(pending: Bool, last: Date?)>((false, nil))

    init(context: ServerContext) {
        self.context = context
        Thread.detachNewThread { [self] in
            while running.withLock({ $0 }) {
                var backlog = tick()
                // Between ticks, a backlog of deliveries drains at the lanes' pace: each lane
                // freed takes the next due delivery (at one tick a second, a tenant got two a second).
                let next = Date().addingTimeInterval(1)
                while Date() < next, running.withLock({ $0 }) {
                    Thread.sleep(forTimeInterval: Self.backlogPoll)
                    if backlog || webhooks.inFlight > 0 { backlog = startDueWebhooks(now: context.clock.now) }
                }
            }
            stopped.signal()
        }
    }

    /// Stops after the current pass (once; later calls return at once).
    func stop() {
        let wasRunning = running.withLock { value -> Bool in
            defer { value = false }
            return value
        }
        if wasRunning {
            stopped.wait()
            // Deliveries under way finish (each attempt times out after 10 s) before the store closes.
            webhooks.drain(timeout: 12)
        }
    }

    /// One pass: keys, expiry, the retention purge and due webhooks, at the context clock's time.
    /// Whether deliveries were due.
    @discardableResult
    func tick() -> Bool {
        let now = context.clock.now
        // Each step fails alone and is logged; the next tick tries again.
        func attempt<T>(_ step: String, _ body: () throws -> T) -> T? {
            do {
                return try body()
            } catch {
                context.logger.log(.error, "worker_failed", ["step": .text(step), "cause": .text("\(error)")])
                return nil
            }
        }
        // Keys rotated or revoked elsewhere (the CLI, another node); a failed read keeps the keys in hand.
        _ = attempt("refresh_keys") { try context.signer.refreshIfDue(now: now) }
        for session in attempt("find_expired", { try context.store.expiredSessions(now: now, limit: 100) }) ?? [] {
            _ = attempt("expire_session") { try context.lifecycle.expireIfDue(session) }
        }
        if let purged = attempt("purge", { try context.lifecycle.purge(now: now) }), purged > 0 {
            context.metrics.add("vigil_personal_data_purged_total", Double(purged))
            reclaim.withLock { $0.pending = true }
        }
        // What the purge removed leaves the database's files at most `reclaimInterval` later.
        let due = reclaim.withLock { state -> Bool in
            guard state.pending, now.timeIntervalSince(state.last ?? .distantPast) >= Self.reclaimInterval else { return false }
            state = (false, now)
            return true
        }
        if due { context.lifecycle.reclaim() }
        _ = attempt("purge_idempotency") { try context.store.purgeIdempotency(before: now.addingTimeInterval(-IdempotencyAnswer.lifetime)) }
        return startDueWebhooks(now: now)
    }

    /// Starts due deliveries on free lanes; whether any were due.
    @discardableResult
    private func startDueWebhooks(now: Date) -> Bool {
        let due: [WebhookDelivery]
        do {
            due = try context.store.dueWebhooks(now: now, limit: 20, excluding: webhooks.fullTenants)
        } catch {
            context.logger.log(.error, "worker_failed", ["step": "find_webhooks", "cause": .text("\(error)")])
            return false
        }
        for delivery in due {
            webhooks.start(delivery) { [context] in
                // Other nodes read the same outbox: only the one whose claim succeeds sends it, and
                // a claim left by a node that died runs out after `lease`.
                let now = context.clock.now
                do {
                    guard try context.store.claimWebhook(id: delivery.id, now: now, until: now.addingTimeInterval(WebhookDispatcher.lease)) else { return }
                } catch {
                    context.logger.log(.error, "worker_failed", ["step": "claim_webhook", "cause": .text("\(error)")])
                    return
                }
                guard let next = WebhookDispatcher(context: context).deliver(delivery, now: context.clock.now) else { return }
                do {
                    try context.store.updateWebhook(next)
                } catch {
                    context.logger.log(.error, "worker_failed", ["step": "record_webhook", "cause": .text("\(error)")])
                }
            }
        }
        return !due.isEmpty
    }
}
