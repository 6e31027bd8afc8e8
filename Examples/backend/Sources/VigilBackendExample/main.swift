// The three things a tenant backend does with Vigil, each a few lines: create a session for the
// app, verify the signed result the app (or `GET /v1/sessions/{id}`) hands back, and verify a
// webhook delivery. Exit codes: 0 done or verified, 1 refused (do not trust it), 2 usage or I/O.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import VigilCore
import VigilVerifier

/// A usage or I/O problem: exit 2 with the message.
struct UsageError: Error, CustomStringConvertible {
    let description: String
}

/// Step 1: the backend creates a session with its API key and gives the app `sessionId` and
/// `sessionToken` (or `captureUrl` for a WebView). The key never leaves the backend.
func createSession(server: URL, apiKey: String, riskLevel: String) async throws -> Data {
    var request = URLRequest(url: server.appendingPathComponent("v1/sessions"))
    request.httpMethod = "POST"
    request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization")
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.httpBody = try JSONSerialization.data(withJSONObject: ["riskLevel": riskLevel])
    let (body, response) = try await URLSession.shared.data(for: request)
    guard (response as? HTTPURLResponse)?.statusCode == 201 else {
        throw UsageError(description: "POST /v1/sessions: \(String(decoding: body, as: UTF8.self))")
    }
    return body
}

/// Step 2: only a result that verifies against the server's keys, for this tenant and this
/// session, is trusted. One fetcher per process: it caches keys by `kid`.
func verifyResult(jws: String, fetcher: JWKSFetcher, tenantId: String, sessionId: String) async throws(VerificationError) -> [String: Any] {
    let verified = try await VigilVerifier.verifyResult(jws: jws, fetcher: fetcher, audience: tenantId, sessionId: sessionId)
    return ["verified": true, "passed": verified.passed, "outcome": verified.claims.outcome, "sessionId": verified.sessionId,
            "kid": verified.kid, "attempt": verified.claims.attempt ?? 1, "feedback": verified.claims.feedback.map(\.rawValue)]
}

/// Webhooks: the raw body and its `Vigil-Signature` header, checked with the webhook secret.
func verifyWebhook(body: [UInt8], signature: String, secret: String) throws(WebhookVerificationError) -> [String: Any] {
    let event = try VigilVerifier.verifyWebhook(body: body, signatureHeader: signature, secret: secret)
    return ["verified": true, "type": event.type, "sessionId": event.sessionId, "status": event.status.rawValue,
            "hasSignedResult": event.signedResult != nil]
}

func option(_ name: String, in arguments: [String]) throws -> String {
    guard let at = arguments.firstIndex(of: "--\(name)"), at + 1 < arguments.count else { throw UsageError(description: "missing --\(name)") }
    return arguments[at + 1]
}

func url(_ text: String) throws -> URL {
    guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https" else { throw UsageError(description: "not a URL: \(text)") }
    return url
}

func printJSON(_ object: [String: Any]) {
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
    print(String(decoding: data, as: UTF8.self))
}

let usage = """
    usage: vigil-backend-example create --server URL --api-key KEY [--risk-level low|medium|high]
           vigil-backend-example verify --server URL --tenant-id ID --session-id ID   < signed-result
           vigil-backend-example webhook --secret SECRET --signature HEADER           < raw-body
    """
let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "create":
        let server = try url(try option("server", in: arguments))
        let risk = (try? option("risk-level", in: arguments)) ?? "medium"
        print(String(decoding: try await createSession(server: server, apiKey: try option("api-key", in: arguments), riskLevel: risk), as: UTF8.self))
    case "verify":
        let server = try url(try option("server", in: arguments))
        let fetcher = JWKSFetcher(url: server.appendingPathComponent(".well-known/jwks.json"))
        let jws = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        do {
            printJSON(try await verifyResult(jws: jws, fetcher: fetcher, tenantId: try option("tenant-id", in: arguments),
                                             sessionId: try option("session-id", in: arguments)))
        } catch let error as VerificationError {
            printJSON(["verified": false, "error": "\(error)"])
            exit(1)
        }
    case "webhook":
        let body = [UInt8](FileHandle.standardInput.readDataToEndOfFile())
        do {
            printJSON(try verifyWebhook(body: body, signature: try option("signature", in: arguments), secret: try option("secret", in: arguments)))
        } catch let error as WebhookVerificationError {
            printJSON(["verified": false, "error": "\(error)"])
            exit(1)
        }
    default:
        throw UsageError(description: usage)
    }
} catch {
    FileHandle.standardError.write(Data("vigil-backend-example: \(error)\n".utf8))
    exit(2)
}
