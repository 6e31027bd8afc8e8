import Foundation
import VigilCore
import VigilCrypto
import VigilStore

/// Sends a webhook delivery from the outbox to its tenant's endpoint, signed with the tenant's
/// secret, and says how to store it next: delivered, retried with exponential backoff and jitter,
/// or dead after 24 h.
struct WebhookDispatcher {
    /// How long a delivery is retried.
    static let retryWindow: TimeInterval = 24 * 3600
    /// The first retry delay; each further one doubles, up to an hour.
    static let firstRetry: TimeInterval = 5

    /// How long a node's claim on a delivery holds: past an attempt's 10 s timeout and the write
    /// of its outcome. A node that dies mid-delivery leaves it to another once it runs out.
    static let lease: TimeInterval = 60

    let context: ServerContext

    /// Sends one delivery; returns it as it should be stored next (nil when the tenant cannot be read).
    func deliver(_ delivery: WebhookDelivery, now: Date) -> WebhookDelivery? {
        var next = delivery
        next.attempts += 1
        let tenant: Tenant?
        do {
            tenant = try context.store.tenant(id: delivery.tenantId)
        } catch {
            context.logger.log(.error, "worker_failed", ["step": "read_tenant", "cause": .text("\(error)")])
            return nil
        }
        let outcome: String?
        if let url = tenant?.webhookURL, let secret = tenant?.webhookSecret {
            do {
                let target = try WebhookTarget.pin(url, allowPrivate: context.configuration.allowPrivateWebhooks)
                outcome = WebhookHTTPClient.post(delivery.payload, to: target, headers: [
                    ("Content-Type", "application/json"),
                    ("Vigil-Signature", WebhookSignature.header(secret: secret, timestamp: Int(now.timeIntervalSince1970), body: delivery.payload)),
                    ("User-Agent", "Vigil-Webhooks/1"),
                ], timeout: 10)
            } catch {
                outcome = error.reason
            }
        } else {
            outcome = "no webhook URL configured"
        }
        if let failure = outcome {
            next.lastError = failure
            if now.timeIntervalSince(delivery.createdAt) >= Self.retryWindow {
                next.state = .dead
            } else {
                let backoff = min(3600, Self.firstRetry * pow(2, Double(next.attempts - 1)))
                next.nextAttemptAt = now.addingTimeInterval(backoff * Double.random(in: 0.8...1.2))
            }
            context.metrics.add("vigil_webhook_attempts_total{result=\"failed\"}")
            context.logger.log(next.state == .dead ? .error : .warning, "webhook_failed", [
                "tenantId": .text(delivery.tenantId), "deliveryId": .text(delivery.id), "event": .text(delivery.event),
                "attempt": .integer(next.attempts), "cause": .text(failure), "state": .text(next.state.rawValue),
            ])
        } else {
            next.state = .delivered
            next.lastError = nil
            context.metrics.add("vigil_webhook_attempts_total{result=\"delivered\"}")
        }
        return next
    }
}
