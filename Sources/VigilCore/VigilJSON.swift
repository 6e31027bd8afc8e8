import Foundation

/// The JSON encoding conventions every Vigil surface uses (CLI, API, signed payloads).
public enum VigilJSON {
    /// An encoder with sorted keys and no escaped slashes, so output is stable and diffable.
    public static func encoder(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
                                          : [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Encodes a value as a UTF-8 JSON string.
    public static func string<T: Encodable>(_ value: T, pretty: Bool = false) throws -> String {
        String(decoding: try encoder(pretty: pretty).encode(value), as: UTF8.self)
    }
}
