import VigilHTTP

/// A service's refusal answered as its code's HTTP error.
extension ServiceError: HTTPErrorConvertible {
    var httpError: HTTPError { HTTPError(code, message, headers: retryAfter.map { [("Retry-After", String($0))] } ?? [], cause: cause) }
}
