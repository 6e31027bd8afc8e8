import VigilHTTP

/// A service's refusal answered as its code's HTTP error.
extension ServiceError: HTTPErrorConvertible {
    var httpError: HTTPError { HTTPError(code, message, cause: cause) }
}
