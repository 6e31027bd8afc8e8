import VigilCore

/// An error a handler throws to answer with `{"error": {"code", "message", "requestId"}}`.
public struct HTTPError: Error, Sendable {
    /// The status code (4xx or 5xx), the code's own.
    public var status: Int { code.status }
    /// The code, from the API's catalogue.
    public var code: APIErrorCode
    /// A human-readable explanation.
    public var message: String
    /// Extra headers (`Retry-After`, `Allow`, `WWW-Authenticate`).
    public var headers: [(name: String, value: String)]
    /// What caused it, for the server's log only (never sent).
    public var cause: String?
    /// When to send again (ms), in the body beside `Retry-After`'s whole seconds.
    public var retryAfterMs: Int?

    /// An error answer.
    public init(_ code: APIErrorCode, _ message: String, headers: [(name: String, value: String)] = [], cause: String? = nil,
                retryAfterMs: Int? = nil) {
        self.code = code
        self.retryAfterMs = retryAfterMs
        self.cause = cause
        self.message = message
        self.headers = headers
    }

    /// The response for this error under `requestId`.
    public func response(requestId: String) -> HTTPResponse {
        struct Body: Encodable {
            struct Detail: Encodable { let code: APIErrorCode, message: String, requestId: String, retryAfterMs: Int? }
            let error: Detail
        }
        var response = HTTPResponse.json(Body(error: .init(code: code, message: message, requestId: requestId, retryAfterMs: retryAfterMs)), status: status)
        response.headers += headers
        response.errorCode = code.rawValue
        response.cause = cause ?? (status >= 500 ? message : nil)
        return response
    }
}

/// An error of a layer under HTTP that knows its answer: handlers may let it through, and the
/// server answers it as `httpError`.
public protocol HTTPErrorConvertible: Error {
    /// The answer this error gets.
    var httpError: HTTPError { get }
}
