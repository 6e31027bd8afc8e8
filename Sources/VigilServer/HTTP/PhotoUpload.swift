import Foundation
import VigilFace
import VigilHTTP

/// Photos sent inside JSON bodies (a session's reference image, the two sides of a comparison):
/// base64, bounded, decoded and described, each failure with its own error.
enum PhotoUpload {
    /// The largest photo accepted, decoded.
    static let maxBytes = 6 * 1024 * 1024
    /// The most pixels a photo may decode to (a 16-megapixel phone photo).
    static let maxPixels = 4096 * 4096
    /// Request body limit for one photo in base64 plus the other fields.
    static let bodyLimitForOne = maxBytes / 3 * 4 + 1024 * 1024
    /// Request body limit for two photos.
    static let bodyLimitForTwo = 2 * (maxBytes / 3 * 4) + 1024 * 1024

    /// The photo in `field`, decoded within `maxPixels`.
    static func image(_ base64: String, field: String, maxPixels: Int = PhotoUpload.maxPixels) throws(HTTPError) -> Image {
        guard base64.utf8.count <= maxBytes / 3 * 4 + 4 else {
            throw HTTPError(.imageTooLarge, "'\(field)' is larger than \(maxBytes / 1024 / 1024) MB")
        }
        guard let data = Data(base64Encoded: base64) else {
            throw HTTPError(.invalidField, "'\(field)' is not standard base64")
        }
        do {
            return try Image(encoded: data, maxPixels: maxPixels)
        } catch {
            throw HTTPError(.invalidImage, "'\(field)' is not a decodable JPEG or PNG: \(error.description)")
        }
    }

    /// The largest face of the photo in `field`.
    static func face(_ base64: String, field: String, _ context: ServerContext) throws(HTTPError) -> PhotoFace {
        let image = try image(base64, field: field)
        let analyzers: AnalyzerPool
        do {
            analyzers = try context.analyzers()
        } catch {
            throw error.httpError
        }
        do {
            return try analyzers.withAnalyzer { try PhotoFace(in: image, analyzer: $0) }
        } catch PhotoFace.Failure.noFace {
            throw HTTPError(.noFace, "no face was found in '\(field)'")
        } catch {
            throw HTTPError(.invalidImage, "the face in '\(field)' could not be described")
        }
    }
}
