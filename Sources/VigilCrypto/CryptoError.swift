/// Why a crypto operation refused its input.
public enum CryptoError: Error, Equatable, Sendable {
    /// A key of the wrong length or form.
    case invalidKey(String)
    /// The platform's crypto library could not start.
    case unavailable
}
