/// Why bytes or a buffer could not become an `Image`.
public enum ImageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No bytes at all.
    case empty
    /// Neither a JPEG nor a PNG signature.
    case unsupportedFormat
    /// A JPEG or PNG variant the decoder does not handle (for example CMYK or lossless JPEG).
    case unsupportedVariant(String)
    /// The stream ends before the image does.
    case truncated
    /// The header or a segment is inconsistent.
    case malformed(String)
    /// The header announces more pixels than allowed; nothing was decoded.
    case tooLarge(width: Int, height: Int, maxPixels: Int)
    /// The header announces a side over `Image.maxSide` or a shape more elongated than
    /// `Image.maxAspectRatio`; nothing was decoded.
    case extremeShape(width: Int, height: Int)
    /// A raw pixel buffer whose size does not match its dimensions.
    case invalidBuffer(String)

    /// A short, stable machine-readable code.
    public var code: String {
        switch self {
        case .empty: "empty"
        case .unsupportedFormat: "unsupported_format"
        case .unsupportedVariant: "unsupported_variant"
        case .truncated: "truncated"
        case .malformed: "malformed"
        case .tooLarge: "too_large"
        case .extremeShape: "extreme_shape"
        case .invalidBuffer: "invalid_buffer"
        }
    }

    public var description: String {
        switch self {
        case .empty: "the image is empty"
        case .unsupportedFormat: "not a JPEG or PNG image"
        case .unsupportedVariant(let what): "unsupported image variant: \(what)"
        case .truncated: "the image data is truncated"
        case .malformed(let why): "malformed image: \(why)"
        case let .tooLarge(width, height, maxPixels): "image of \(width)x\(height) exceeds the limit of \(maxPixels) pixels"
        case let .extremeShape(width, height):
            "image of \(width)x\(height) is longer than \(Image.maxSide) pixels on a side or more than \(Image.maxAspectRatio) times longer than wide"
        case .invalidBuffer(let why): "invalid pixel buffer: \(why)"
        }
    }
}
