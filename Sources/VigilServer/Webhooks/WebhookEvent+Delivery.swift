import Foundation
import VigilCore
import VigilHTTP
import VigilStore

/// Webhook bodies.
extension WebhookEvent {
    /// A pending delivery of `event` for `session`, made at `now`.
    static func delivery(_ event: String, session: SessionRecord, result: VerdictPayload?, at now: Date) -> WebhookDelivery {
        let id = Identifiers.id("evt_")
        let body = WebhookEvent(id: id, type: event, createdAt: now, sessionId: session.id, externalRef: session.externalRef,
                                status: session.status, result: result, signedResult: session.signedResult)
        return WebhookDelivery(id: id, tenantId: session.tenantId, sessionId: session.id, event: event, payload: encoded(body), createdAt: now)
    }

    /// The JSON body sent (encoding plain values does not fail).
    static func encoded(_ event: WebhookEvent) -> [UInt8] {
        (try? HTTPJSON.encoder.encode(event)).map { [UInt8]($0) } ?? []
    }
}

extension ServerContext {
    /// The webhook delivery of `name` for `record`, when its tenant has a webhook configured.
    func event(_ name: String, for record: SessionRecord, result: VerdictPayload? = nil, at now: Date) throws(StoreError) -> WebhookDelivery? {
        guard try store.tenant(id: record.tenantId)?.webhookURL != nil else { return nil }
        return WebhookEvent.delivery(name, session: record, result: result, at: now)
    }
}
