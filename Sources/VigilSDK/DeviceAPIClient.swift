import Foundation
import VigilCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The device API (`/v1/client/...`) for one session, authorised by its session token.
public struct DeviceAPIClient: Sendable {
    /// The session's state as `GET /v1/client/session` reports it.
    public struct Status: Decodable, Sendable, Hashable {
        /// created, capturing, processing, completed, expired, cancelled.
        public let status: String
        public let outcome: String?
        public let feedback: [String]?
        public let signedResult: String?
        public let lockedOut: Bool?
        /// The document step, while the session is open and its policy has one.
        public let document: DocumentStep?
        /// Whether nothing more can happen to the session.
        public var isFinal: Bool { SessionStatus(rawValue: status)?.isFinal == true }
    }

    /// A session's document step as the status reports it.
    public struct DocumentStep: Decodable, Sendable, Hashable {
        public let captured: Bool, required: Bool, matchFace: Bool
        public let types: [DocumentType]
    }

    /// A document photo's answer from `POST /v1/client/document`.
    public struct DocumentAnswer: Decodable, Sendable, Hashable {
        /// Whether the photo became the session's document.
        public let captured: Bool
        /// What to do next when it did not.
        public let guidance: DocumentGuidance?
        /// The format read (`TD1`, `TD2`, `TD3`), when one was.
        public let type: String?
        /// True when this refusal used the session's last attempt: the session failed.
        public let lockedOut: Bool?
    }

    /// One frame's answer from `POST /v1/client/frames` (unknown fields ignored).
    public struct FrameAnswer: Decodable, Sendable {
        /// The challenge on screen.
        public struct Challenge: Decodable, Sendable { public let index: Int, kind: String, state: String }
        /// The reflection sequence, once it started.
        public struct Reflection: Decodable, Sendable { public let colors: [String], startMs: Int, stepMs: Int }
        public let status: String
        public let face: Bool?
        public let guidance: String?
        public let challenge: Challenge?
        public let reflection: Reflection?
        public let outcome: String?
        /// Whether the session ended with this frame.
        public var isFinal: Bool { SessionStatus(rawValue: status)?.isFinal == true }
    }

    /// What the server answered instead of a 2xx.
    public struct Refusal: Error, Sendable {
        public let status: Int, code: String, message: String
        /// Seconds to wait before sending again (429 `rate_limited`, 503 `server_busy`): the
        /// body's `retryAfterMs` where the server gives one, else `Retry-After`.
        public let retryAfter: Double?
        /// The code from the API's catalogue (nil for a code this SDK does not know).
        public var errorCode: APIErrorCode? { APIErrorCode(rawValue: code) }
    }

    /// A 502, 503 or 504 from a proxy or load balancer in front of Vigil, not from Vigil (no
    /// error body): a node went away. Hosts retry it as a network failure.
    public struct GatewayFailure: Error, Sendable {
        public let status: Int
    }

    let base: URL, token: String, session: URLSession

    /// A client for `serverURL`, authorised as the session whose token is `token`.
    public init(serverURL: URL, token: String, session: URLSession = .shared) {
        self.base = serverURL
        self.token = token
        self.session = session
    }

    /// `GET /v1/client/session`.
    public func status() async throws -> Status {
        try decode(Status.self, try await send("GET", "/v1/client/session"))
    }

    /// `POST /v1/client/frames`: one JPEG taken `captureMs` after capture start.
    public func send(frame jpeg: [UInt8], captureMs: Int) async throws -> FrameAnswer {
        try decode(FrameAnswer.self, try await send("POST", "/v1/client/frames", body: Data(jpeg),
                                                    headers: ["Content-Type": "image/jpeg", "Vigil-Capture-Time": String(captureMs)]))
    }

    /// `POST /v1/client/document`: one JPEG of the identity document, for the document step.
    public func send(document jpeg: [UInt8]) async throws -> DocumentAnswer {
        try decode(DocumentAnswer.self, try await send("POST", "/v1/client/document", body: Data(jpeg), headers: ["Content-Type": "image/jpeg"]))
    }

    /// `POST /v1/client/finish`: decide on the frames sent so far.
    public func finish() async throws -> Status { try decode(Status.self, try await send("POST", "/v1/client/finish")) }

    /// `POST /v1/client/device`: the device id, once per session (it ends up in `risk.deviceId`).
    public func report(deviceId: String) async throws {
        _ = try await send("POST", "/v1/client/device", body: try JSONEncoder().encode(["deviceId": deviceId]),
                           headers: ["Content-Type": "application/json"])
    }

    /// `POST /v1/client/decline-reflection`: the person declined the colour flashes; the attempt
    /// goes on with motions only. A `Refusal` (409) when the policy has no such fallback. For hosts
    /// that skip the page's intro (`autostart`) and ask in their own UI.
    public func declineReflection() async throws {
        _ = try await send("POST", "/v1/client/decline-reflection")
    }

    /// `POST /v1/client/cancel`.
    public func cancel() async throws { _ = try await send("POST", "/v1/client/cancel") }

    private func send(_ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:]) async throws -> Data {
        var request = URLRequest(url: base.appendingPathComponent(String(path.dropFirst())), cachePolicy: .reloadIgnoringLocalCacheData,
                                 timeoutInterval: 10)
        request.httpMethod = method
        request.httpBody = body
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        let http = response as? HTTPURLResponse
        guard let http, (200..<300).contains(http.statusCode) else {
            struct Body: Decodable {
                struct Detail: Decodable { let code: String?, message: String?, retryAfterMs: Int? }
                let error: Detail?
            }
            let error = (try? JSONDecoder().decode(Body.self, from: data))?.error
            if let http, (502...504).contains(http.statusCode), error?.code == nil { throw GatewayFailure(status: http.statusCode) }
            throw Refusal(status: http?.statusCode ?? 0, code: error?.code ?? "", message: error?.message ?? "",
                          retryAfter: error?.retryAfterMs.map { Double($0) / 1000 } ?? http?.value(forHTTPHeaderField: "Retry-After").flatMap(Double.init))
        }
        return data
    }

    private func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
        do { return try JSONDecoder().decode(T.self, from: data) } catch { throw VigilError.serverError("unreadable answer: \(error)") }
    }
}
