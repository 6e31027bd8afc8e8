/// A tenant's look for the capture page: colours, a logo, text overrides per language, and the
/// origins allowed to frame the page. Body of `PUT /v1/branding`.
public struct Branding: Codable, Hashable, Sendable {
    /// Colours as `#rrggbb`.
    public struct Colors: Codable, Hashable, Sendable {
        /// Buttons, progress and links.
        public var accent: String?
        /// The page background.
        public var background: String?
        /// Body text.
        public var text: String?

        /// Colours.
        public init(accent: String? = nil, background: String? = nil, text: String? = nil) {
            self.accent = accent
            self.background = background
            self.text = text
        }
    }

    /// Colours (each optional).
    public var colors: Colors?
    /// A PNG or JPEG logo as a `data:` URL.
    public var logo: String?
    /// Catalogue strings to replace, by locale then key (`{"en": {"introTitle": "..."}}`).
    public var texts: [String: [String: String]]?
    /// Origins (`https://app.example`) whose pages may show the capture page in an iframe.
    public var frameAncestors: [String]?

    /// The fields a body may carry.
    public static let fields: Set<String> = ["colors", "logo", "texts", "frameAncestors"]
    /// Limits: logo size as a data URL, text length, origins.
    public static let limits = (logoBytes: 200_000, textLength: 300, origins: 10)

    /// Branding.
    public init(colors: Colors? = nil, logo: String? = nil, texts: [String: [String: String]]? = nil, frameAncestors: [String]? = nil) {
        self.colors = colors
        self.logo = logo
        self.texts = texts
        self.frameAncestors = frameAncestors
    }
}
