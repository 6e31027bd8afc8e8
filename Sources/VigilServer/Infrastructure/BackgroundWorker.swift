import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import VigilCore
import VigilCrypto
import VigilStore

/// Once a second: reads the signing keys again when due, marks sessions past `expiresAt` expired (queuing `session.expired`), deletes
/// audit images and reference faces past their retention deadline, then sends due webhooks from
/// the outbox, retrying with exponential backoff and jitter for 24 h before dead-lettering.
/// Everything it does is in the store, so a restart loses nothing.
final class BackgroundWorker: Sendable {
    /// How long a delivery is retried.
    static let retryWindow: TimeInterval = 24 * 3600
    /// The first retry delay; each further one doubles, up to an hour.
    static let firstRetry: TimeInterval = 5

    private let context: ServerContext
    private let running = Mutex(true)
    private let stopped = DispatchSemaphore(value: 0)

    init(context: ServerContext) {
        self.context = context
        Thread.detachNewThread { [self] in
            while running.withLock({ $0 }) {
                tick()
                Thread.sleep(forTimeInterval: 1)
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
        if wasRunning { stopped.wait() }
    }

    /// One pass: keys, expiry, the retention purge and due webhooks, at the context clock's time.
    func tick() {
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
            _ = attempt("expire_session") { try context.capture.expireIfDue(session) }
        }
        let webhooksBefore = now.addingTimeInterval(-context.configuration.retention)
        if let purged = attempt("purge", { try context.store.purgePersonalData(now: now, webhooksBefore: webhooksBefore) }), purged > 0 {
            context.metrics.add("vigil_personal_data_purged_total", Double(purged))
        }
        for delivery in attempt("find_webhooks", { try context.store.dueWebhooks(now: now, limit: 20) }) ?? [] {
            if let next = deliver(delivery, now: now) { _ = attempt("record_webhook") { try context.store.updateWebhook(next) } }
        }
    }

    /// Sends one delivery; returns it as it should be stored next (nil when the tenant cannot be read).
    private func deliver(_ delivery: WebhookDelivery, now: Date) -> WebhookDelivery? {
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
            if let refusal = WebhookTarget.refusal(url, allowPrivate: context.configuration.allowPrivateWebhooks) {
                outcome = refusal
            } else {
                outcome = post(delivery.payload, to: url, secret: secret, now: now)
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

    /// POSTs `body`; nil on a 2xx answer, the failure otherwise.
    private func post(_ body: [UInt8], to url: String, secret: String, now: Date) -> String? {
        guard let target = URL(string: url) else { return "invalid URL" }
        var request = URLRequest(url: target, timeoutInterval: 10)
        request.httpMethod = "POST"
        request.httpBody = Data(body)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(WebhookSignature.header(secret: secret, timestamp: Int(now.timeIntervalSince1970), body: body), forHTTPHeaderField: "Vigil-Signature")
        request.setValue("Vigil-Webhooks/1", forHTTPHeaderField: "User-Agent")
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<String?>("no answer")
        URLSession.shared.dataTask(with: request) { _, response, error in
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            result.withLock { $0 = (200..<300).contains(status) ? nil : error.map { "\($0.localizedDescription)" } ?? "HTTP \(status)" }
            done.signal()
        }.resume()
        done.wait()
        return result.withLock { $0 }
    }
}
