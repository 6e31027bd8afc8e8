import VigilCore

/// Why a step under the HTTP layer (capture, signing, the store) was refused or failed: a code
/// from the API's catalogue, a message for the caller and, for the server's own failures, a
/// cause for the log only. The HTTP layer answers it with the code's status.
struct ServiceError: Error {
    /// The code, from the API's catalogue.
    let code: APIErrorCode
    /// A human-readable explanation for the caller.
    let message: String
    /// What caused it, for the server's log only (never sent).
    let cause: String?

    /// A refusal or failure with `code`.
    init(_ code: APIErrorCode, _ message: String, cause: String? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }
}

extension ServiceError: CustomStringConvertible {
    /// As logs show it: the code, and the cause where there is one.
    var description: String { "\(code.rawValue): \(cause ?? message)" }
}
