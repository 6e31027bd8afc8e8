import Foundation

/// What a handler answers.
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Headers besides `Content-Length` (set by the server) and `X-Request-Id`.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]
    /// The error code of an error answer, and what caused it: for the server's log (never sent).
    public var errorCode: String?, cause: String?

    /// A response.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// `value` as JSON (ISO 8601 dates, sorted keys).
    public static func json(_ value: some Encodable, status: Int = 200, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        let body = (try? HTTPJSON.encoder.encode(value)).map { [UInt8]($0) } ?? Array("{}".utf8)
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: body)
    }

    /// Plain text.
    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", contentType)], body: Array(text.utf8))
    }

    /// The value of header `name` (any case).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// The JSON coders of the HTTP layer.
public enum HTTPJSON {
    /// Sorted keys, ISO 8601 dates, no escaped slashes. One shared encoder: configured once and
    /// never changed, so concurrent `encode` calls are safe.
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()
}
