import Foundation

/// Why a compact JWS could not be read.
public enum JWSError: Error, Equatable, Sendable {
    /// Not three base64url segments, or a header that is not JSON.
    case malformed(String)
    /// A header algorithm other than the one expected.
    case unsupportedAlgorithm(String)
}

/// A JWS in compact serialisation (RFC 7515): `header.payload.signature`, each base64url. Only
/// the encoding lives here; signing and verifying are in `VigilCrypto`.
public struct CompactJWS: Sendable, Hashable {
    /// The protected header fields Vigil uses.
    public struct Header: Codable, Sendable, Hashable {
        /// The algorithm: Vigil signs with "EdDSA".
        public var alg: String
        /// The signing key's id, as listed in the JWKS.
        public var kid: String?
        /// The media type, "JWT" for Vigil's results.
        public var typ: String?

        /// A header.
        public init(alg: String, kid: String? = nil, typ: String? = nil) {
            self.alg = alg
            self.kid = kid
            self.typ = typ
        }
    }

    /// The most bytes of a compact JWS Vigil reads (verdicts are a few KiB).
    public static let maxLength = 64 * 1024

    /// The decoded header.
    public let header: Header
    /// The header and payload segments exactly as received (what the signature covers).
    public let headerSegment: String, payloadSegment: String
    /// The decoded payload.
    public let payload: [UInt8]
    /// The decoded signature.
    public let signature: [UInt8]

    /// The bytes the signature covers: `header.payload` in ASCII.
    public var signingInput: [UInt8] { Array("\(headerSegment).\(payloadSegment)".utf8) }
    /// The compact serialisation.
    public var compact: String { "\(headerSegment).\(payloadSegment).\(Base64URL.encode(signature))" }

    /// The signing input for a new JWS with `header` and `payload` (sign it, then `init(signingInput:signature:)`).
    public static func signingInput(header: Header, payload: [UInt8]) -> (header: String, payload: String) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let headerJSON = (try? encoder.encode(header)) ?? Data()
        return (Base64URL.encode(headerJSON), Base64URL.encode(payload))
    }

    /// A JWS from segments made by `signingInput(header:payload:)` and a signature over them.
    public init(header: Header, payload: [UInt8], signature: [UInt8]) {
        let segments = Self.signingInput(header: header, payload: payload)
        self.header = header
        self.headerSegment = segments.header
        self.payloadSegment = segments.payload
        self.payload = payload
        self.signature = signature
    }

    /// Parses a compact JWS; the signature is not checked here.
    public init(parsing text: String) throws(JWSError) {
        guard text.utf8.count <= Self.maxLength else { throw .malformed("longer than \(Self.maxLength) bytes") }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("a compact JWS has three segments, this one \(parts.count)") }
        guard let headerBytes = Base64URL.decode(parts[0]), let payload = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]) else {
            throw .malformed("a segment is not base64url")
        }
        guard let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)) else {
            throw .malformed("the header is not a JSON object with \"alg\"")
        }
        self.header = header
        headerSegment = String(parts[0])
        payloadSegment = String(parts[1])
        self.payload = payload
        self.signature = signature
    }
}
