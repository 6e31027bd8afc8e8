/// Why a liveness check did not end with a result (SPEC section 9). `userMessage` is for the
/// person; `description` keeps the technical detail, for logs only.
public enum VigilError: Error, Sendable, Hashable, CustomStringConvertible {
    case notInitialized
    case securityException(String)
    case cameraPermissionDenied
    case networkError(String)
    case serverError(String)
    case unsupportedDevice
    case captureAlreadyActive
    case userTimeout
    /// The person cancelled: not a failure of anything.
    case userCancelled
    /// The session ended without a decided result (expired, cancelled elsewhere).
    case sessionNotCompleted(status: String, message: String)
    /// The session asks for an identity document and the one given was not taken (the
    /// server's `DocumentGuidance`, such as `glare` or `typeNotAccepted`).
    case documentNotCaptured(String)
    case unexpected(String)

    /// Languages `userMessage` speaks.
    public static let locales = ["en", "pt-BR", "es", "fr", "zh-Hans"]

    /// Whether this is the person's own choice rather than a failure.
    public var isUserCancellation: Bool { self == .userCancelled }

    /// The server refused the session token (401): a new session is needed.
    static let invalidToken = VigilError.sessionNotCompleted(status: "invalid", message: "the session token is not valid")

    /// A short message for the person, in `locale` (English for any other).
    public func userMessage(locale: String = "en") -> String {
        let texts = Self.messages[key] ?? Self.messages["unexpected"]!
        let index = Self.locales.firstIndex(of: locale) ?? 0
        return texts[index]
    }

    /// The technical detail, for logs.
    public var description: String {
        switch self {
        case .securityException(let detail): "securityException: \(detail)"
        case .networkError(let detail): "networkError: \(detail)"
        case .serverError(let detail): "serverError: \(detail)"
        case .sessionNotCompleted(let status, let message): "sessionNotCompleted(\(status)): \(message)"
        case .documentNotCaptured(let guidance): "documentNotCaptured: \(guidance)"
        case .unexpected(let detail): "unexpected: \(detail)"
        default: key
        }
    }

    private var key: String {
        switch self {
        case .notInitialized: "notInitialized"
        case .securityException: "securityException"
        case .cameraPermissionDenied: "cameraPermissionDenied"
        case .networkError: "networkError"
        case .serverError: "serverError"
        case .unsupportedDevice: "unsupportedDevice"
        case .captureAlreadyActive: "captureAlreadyActive"
        case .userTimeout: "userTimeout"
        case .userCancelled: "userCancelled"
        case .sessionNotCompleted: "sessionNotCompleted"
        case .documentNotCaptured: "documentNotCaptured"
        case .unexpected: "unexpected"
        }
    }

    /// en, pt-BR, es, fr, zh-Hans.
    private static let messages: [String: [String]] = [
        "notInitialized": ["Verification is not ready yet. Please try again.", "A verificação ainda não está pronta. Tente novamente.",
                           "La verificación aún no está lista. Inténtalo de nuevo.", "La vérification n'est pas encore prête. Réessayez.",
                           "验证尚未就绪，请重试。"],
        "securityException": ["This device cannot be used for verification.", "Este dispositivo não pode ser usado para a verificação.",
                              "Este dispositivo no se puede usar para la verificación.", "Cet appareil ne peut pas être utilisé pour la vérification.",
                              "此设备无法用于验证。"],
        "cameraPermissionDenied": ["Allow camera access to continue.", "Permita o acesso à câmera para continuar.",
                                   "Permite el acceso a la cámara para continuar.", "Autorisez l'accès à la caméra pour continuer.",
                                   "请允许访问摄像头以继续。"],
        "networkError": ["Check your connection and try again.", "Verifique sua conexão e tente novamente.",
                         "Comprueba tu conexión e inténtalo de nuevo.", "Vérifiez votre connexion et réessayez.", "请检查网络连接后重试。"],
        "serverError": ["Something went wrong on our side. Please try again.", "Algo deu errado do nosso lado. Tente novamente.",
                        "Algo salió mal por nuestra parte. Inténtalo de nuevo.", "Un problème est survenu de notre côté. Réessayez.",
                        "我们这边出了点问题，请重试。"],
        "unsupportedDevice": ["This device is not supported.", "Este dispositivo não é compatível.", "Este dispositivo no es compatible.",
                              "Cet appareil n'est pas pris en charge.", "不支持此设备。"],
        "captureAlreadyActive": ["A verification is already in progress.", "Já existe uma verificação em andamento.",
                                 "Ya hay una verificación en curso.", "Une vérification est déjà en cours.", "已有验证正在进行。"],
        "userTimeout": ["Time ran out. Please try again.", "O tempo acabou. Tente novamente.", "Se acabó el tiempo. Inténtalo de nuevo.",
                        "Le temps est écoulé. Réessayez.", "时间已到，请重试。"],
        "userCancelled": ["Verification cancelled.", "Verificação cancelada.", "Verificación cancelada.", "Vérification annulée.", "验证已取消。"],
        "sessionNotCompleted": ["This verification link is no longer valid.", "Este link de verificação não é mais válido.",
                                "Este enlace de verificación ya no es válido.", "Ce lien de vérification n'est plus valide.", "此验证链接已失效。"],
        "documentNotCaptured": ["The document could not be read. Photograph the page with the machine-readable lines, flat and in good light.",
                                "Não foi possível ler o documento. Fotografe a página com as linhas de leitura automática, plana e com boa luz.",
                                "No se pudo leer el documento. Fotografía la página con las líneas de lectura automática, plana y con buena luz.",
                                "Le document n'a pas pu être lu. Photographiez la page avec les lignes de lecture automatique, à plat et bien éclairée.",
                                "无法读取证件。请在光线充足处平放拍摄带有机读码的页面。"],
        "unexpected": ["Something went wrong. Please try again.", "Algo deu errado. Tente novamente.", "Algo salió mal. Inténtalo de nuevo.",
                       "Un problème est survenu. Réessayez.", "出现问题，请重试。"],
    ]
}

/// Why `initialize` refused.
public enum VigilInitError: Error, Sendable, Hashable {
    /// `initialize` ran before; call `stop()` first.
    case alreadyInitialized
    /// The configuration cannot work (the reason names the field).
    case invalidConfiguration(String)
}
