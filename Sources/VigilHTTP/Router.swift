/// Routes requests by method and path pattern (`/v1/sessions/{sessionId}`) to handlers.
public struct Router: Sendable {
    /// Answers one request; throw `HTTPError` for an error answer.
    public typealias Handler = @Sendable (HTTPRequest) throws -> HTTPResponse
    /// Decides on a request's headers, before its body is read (authentication, so that no
    /// stranger's body is ever buffered); throw to refuse it. The body is empty here.
    public typealias Admission = @Sendable (HTTPRequest) throws -> Void

    /// Where a route's handler runs.
    public enum Lane: Sendable, Equatable {
        /// On the HTTP thread that read the request: quick answers.
        case http
        /// On the worker threads (image decoding, face analysis), leaving the HTTP threads free.
        case workers
        /// On threads of their own at a lower priority, with a bounded queue: long jobs (a
        /// document read) that must never hold the workers that quick offloaded work needs.
        case background
    }

    /// One registered route.
    public struct Route: Sendable {
        /// The method.
        public let method: String
        /// The pattern, `{name}` segments matching any one segment.
        public let pattern: String
        /// The most body bytes this route reads.
        public let bodyLimit: Int
        /// Where its handler runs.
        public let lane: Lane
        let segments: [Segment]
        let admit: Admission?
        let handler: Handler
    }

    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    /// Every route, in registration order.
    public private(set) var routes: [Route] = []
    /// Routes without parameters by method and canonical path: most requests find theirs here
    /// without splitting the path.
    private var exact: [String: [String: Int]] = [:]

    /// An empty router.
    public init() {}

    /// Registers `handler` for `method` and `pattern`; `admit`, if any, decides on the headers
    /// first; `lane` says which threads run the handler.
    public mutating func add(_ method: String, _ pattern: String, bodyLimit: Int = 0, lane: Lane = .http, admit: Admission? = nil,
                             _ handler: @escaping Handler) {
        let segments = Self.split(pattern).map { s -> Segment in
            s.hasPrefix("{") && s.hasSuffix("}") ? .parameter(String(s.dropFirst().dropLast())) : .literal(String(s))
        }
        precondition(!routes.contains { $0.method == method && $0.segments == segments }, "route \(method) \(pattern) registered twice")
        routes.append(Route(method: method, pattern: pattern, bodyLimit: bodyLimit, lane: lane, segments: segments, admit: admit,
                            handler: handler))
        let literals = segments.compactMap { if case .literal(let text) = $0 { text } else { nil } }
        if literals.count == segments.count { exact[method, default: [:]]["/" + literals.joined(separator: "/")] = routes.count - 1 }
    }

    /// The pattern of the route matching a request line (`/v1/sessions/{sessionId}`), for logs.
    public func pattern(method: String, path: String) -> String? {
        match(method: method, path: path)?.route.pattern
    }

    /// Which threads run the route matching a request line (`.http` when none matches).
    public func lane(method: String, path: String) -> Lane {
        match(method: method, path: path)?.route.lane ?? .http
    }

    /// The methods some route answers: anything else is `other` in metrics and logs, so that a
    /// client cannot write what it likes into them.
    public var methods: Set<String> { Set(routes.map(\.method)) }

    /// The body limit for a request line: the route's, or 0 when no route matches.
    public func bodyLimit(method: String, path: String) -> Int {
        match(method: method, path: path)?.route.bodyLimit ?? 0
    }

    /// What the server does once a request's headers are in: the body limit of its route, and
    /// the refusal its route's admission threw, if any (as `respond(to:refusal:)` would answer it).
    /// `head` is built only for a route that has an admission (most requests need none).
    public func admission(method: String, path: String, head: () -> HTTPRequest) -> (bodyLimit: Int, refusal: (any Error)?) {
        guard let (route, parameters) = match(method: method, path: path) else { return (0, nil) }
        guard let admit = route.admit else { return (route.bodyLimit, nil) }
        var head = head()
        head.parameters = parameters
        do {
            try admit(head)
            return (route.bodyLimit, nil)
        } catch {
            return (route.bodyLimit, error)
        }
    }

    /// Runs the matching handler: 404 when no pattern matches, 405 when only other methods do.
    public func handle(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let (route, parameters) = match(method: request.method, path: request.path) else {
            let allowed = Set(routes.filter { Self.parameters($0.segments, Self.split(request.path)) != nil }.map(\.method)).sorted()
            if allowed.isEmpty { throw HTTPError(.notFound, "no such endpoint: \(request.path)") }
            throw HTTPError(.methodNotAllowed, "\(request.method) is not allowed here", headers: [("Allow", allowed.joined(separator: ", "))])
        }
        var request = request
        request.parameters = parameters
        request.admittedOnHeaders = route.admit != nil
        return try route.handler(request)
    }

    /// The answer to `request`: `refusal` when the server refused it before its handler (a body
    /// over the limit, or its admission's refusal), else its handler's, or the error it threw as an error answer
    /// (`HTTPError`, `HTTPErrorConvertible`, anything else as `internal_error` with its cause),
    /// with `X-Request-Id`. The server answers every request this way; tests may call it directly.
    public func respond(to request: inout HTTPRequest, refusal: (any Error)? = nil) -> HTTPResponse {
        var response: HTTPResponse
        do {
            if let refusal { throw refusal }
            response = try handle(request)
        } catch let error as HTTPError {
            response = error.response(requestId: request.requestId)
        } catch let error as any HTTPErrorConvertible {
            response = error.httpError.response(requestId: request.requestId)
        } catch {
            response = HTTPError(.internalError, "the server could not answer this request", cause: "\(error)").response(requestId: request.requestId)
        }
        response.headers.append(("X-Request-Id", request.requestId))
        request.route = pattern(method: request.method, path: request.path)
        return response
    }

    private func match(method: String, path: String) -> (route: Route, parameters: [String: String])? {
        if let index = exact[method]?[path] { return (routes[index], [:]) }
        let parts = Self.split(path)
        for route in routes where route.method == method {
            if let parameters = Self.parameters(route.segments, parts) { return (route, parameters) }
        }
        return nil
    }

    private static func parameters(_ segments: [Segment], _ parts: [Substring]) -> [String: String]? {
        guard segments.count == parts.count else { return nil }
        var out: [String: String] = [:]
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let text): guard part == text else { return nil }
            case .parameter(let name): out[name] = String(part)
            }
        }
        return out
    }

    private static func split(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }
}
