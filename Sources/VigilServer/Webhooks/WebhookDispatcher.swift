import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
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

    let context: ServerContext

    /// Deliveries follow no redirect: a public endpoint could otherwise send the POST on to a
    /// private or metadata address that the target check refused. A redirect is a failed attempt.
    static let session = URLSession(configuration: .ephemeral, delegate: RedirectRefusal(), delegateQueue: nil)

    /// Answers every redirect with "do not follow", so the 3xx itself is the response.
    final class RedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
            completionHandler(nil)
        }
    }

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
        Self.session.dataTask(with: request) { _, response, error in
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            result.withLock { $0 = (200..<300).contains(status) ? nil : error.map { "\($0.localizedDescription)" } ?? "HTTP \(status)" }
            done.signal()
        }.resume()
        done.wait()
        return result.withLock { $0 }
    }
}
