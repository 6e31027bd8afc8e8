import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The app's own backend, never Vigil directly: it holds the API key, creates the session and
/// verifies the signed result (see Examples/backend).
public protocol VerificationBackend: Sendable {
    /// A new Vigil session for this user: its id and device token.
    func startVerification(ssid: String) async throws -> (sessionId: String, sessionToken: String)
    /// Hands the signed result over; whether the backend accepts the person comes back (it
    /// verified the result with `VigilVerifier` and the outcome passed).
    func submit(sessionId: String, signedResult: String) async throws -> Bool
}

/// A backend speaking two JSON routes: `POST /verifications` -> `{sessionId, sessionToken}` and
/// `POST /verifications/{id}/result` `{signedResult}` -> `{accepted: Bool}`.
public struct HTTPVerificationBackend: VerificationBackend {
    /// The backend's base URL.
    public let baseURL: URL

    /// A backend at `baseURL`.
    public init(baseURL: URL) { self.baseURL = baseURL }

    public func startVerification(ssid: String) async throws -> (sessionId: String, sessionToken: String) {
        struct Started: Decodable { let sessionId: String, sessionToken: String }
        let started = try JSONDecoder().decode(Started.self, from: try await post("verifications", ["ssid": ssid]))
        return (started.sessionId, started.sessionToken)
    }

    public func submit(sessionId: String, signedResult: String) async throws -> Bool {
        struct Verdict: Decodable { let accepted: Bool }
        return try JSONDecoder().decode(Verdict.self, from: try await post("verifications/\(sessionId)/result", ["signedResult": signedResult])).accepted
    }

    private func post(_ path: String, _ body: [String: String]) async throws -> Data {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(body)
        let (data, response) = try await URLSession.shared.data(for: request)
        guard let status = (response as? HTTPURLResponse)?.statusCode, (200..<300).contains(status) else { throw URLError(.badServerResponse) }
        return data
    }
}
