/// Why the face models could not be loaded.
public enum ModelError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A model file is not where it should be.
    case missingFile(name: String, directory: String)
    /// A model file exists but could not be read as a model.
    case invalidFile(name: String, reason: String)
    /// dlib could not allocate a per-worker object.
    case allocationFailed(String)
    /// A loaded network failed to run.
    case runFailed(String)

    public var description: String {
        switch self {
        case let .missingFile(name, directory):
            "model file \(name) not found in \(directory); run scripts/setup (or set VIGIL_MODELS)"
        case let .invalidFile(name, reason): "model file \(name) is not usable: \(reason); run scripts/setup again"
        case .allocationFailed(let what): "could not create \(what)"
        case .runFailed(let reason): "a face model failed to run: \(reason)"
        }
    }
}
