/// `POST /v1/documents/read`: one photo of a document's page with the machine-readable zone.
public struct DocumentReadRequest: Codable, Hashable, Sendable {
    /// The photo: a JPEG or PNG, base64.
    public var image: String

    /// The fields a request may carry.
    public static let fields: Set<String> = ["image"]

    /// A request.
    public init(image: String) { self.image = image }
}
