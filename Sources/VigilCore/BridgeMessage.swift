import Foundation

/// One message the capture page sends its native host (SPEC section 8), parsed from the JSON
/// envelope `{"source":"vigil","version":1,"kind":K,"data":D}`. Hosts on every platform share
/// this parser, so a message is accepted or dropped the same way everywhere.
public enum BridgeMessage: Sendable, Hashable {
    /// How the page ended, as `complete` reports it.
    public enum Completion: String, Sendable, Hashable {
        /// A result is shown: the server decided (read the verdict from the backend).
        case submitted
        /// The page ended unfinished (destroyed by the host, or cancelled).
        case abandoned
    }

    /// The page loaded and can start.
    case ready
    /// A step of the capture (`type` from the catalogue in docs/webview.md), with its string,
    /// number and boolean details as text; other detail values are left out.
    case event(type: String, details: [String: String])
    /// The page ended.
    case complete(Completion)
    /// The person pressed cancel on the page.
    case cancel(sessionId: String)
    /// The page shows an error screen.
    case error(code: String, message: String)

    /// Why a message was dropped.
    public enum Rejection: Error, Sendable, Hashable {
        /// Not a JSON object, or larger than `maxBytes`.
        case malformed
        /// `source` is not `vigil`: another script's message.
        case wrongSource
        /// `version` is not 1.
        case unsupportedVersion
        /// A kind this host does not know (a newer page); receivers ignore it.
        case unknownKind(String)
        /// A known kind whose `data` lacks what it must carry.
        case invalidData(kind: String)
    }

    /// The largest envelope accepted; the page's are well under 1 KiB.
    public static let maxBytes = 16 * 1024

    /// Parses one envelope as the page sends it (a JSON string).
    public init(envelope text: String) throws(Rejection) {
        guard text.utf8.count <= Self.maxBytes, let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(text.utf8)) else {
            throw .malformed
        }
        guard envelope.source == "vigil" else { throw .wrongSource }
        guard envelope.version == .number(1) else { throw .unsupportedVersion }
        guard let kind = envelope.kind else { throw .malformed }
        let data = envelope.data ?? [:]
        switch kind {
        case "ready":
            self = .ready
        case "event":
            guard case .text(let type)? = data["type"], !type.isEmpty else { throw .invalidData(kind: kind) }
            self = .event(type: type, details: data.filter { $0.key != "type" }.compactMapValues(\.text))
        case "complete":
            guard let status = data["status"]?.text.flatMap(Completion.init(rawValue:)) else { throw .invalidData(kind: kind) }
            self = .complete(status)
        case "cancel":
            guard case .text(let id)? = data["session_id"], !id.isEmpty else { throw .invalidData(kind: kind) }
            self = .cancel(sessionId: id)
        case "error":
            guard case .text(let code)? = data["code"] else { throw .invalidData(kind: kind) }
            self = .error(code: code, message: data["message"]?.text ?? "")
        default:
            throw .unknownKind(kind)
        }
    }

    /// The envelope as sent; fields of the wrong JSON type read as missing.
    private struct Envelope: Decodable {
        let source: String?, version: Scalar?, kind: String?, data: [String: Scalar]?

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            source = try? c.decodeIfPresent(String.self, forKey: .source)
            version = try? c.decodeIfPresent(Scalar.self, forKey: .version)
            kind = try? c.decodeIfPresent(String.self, forKey: .kind)
            data = try? c.decodeIfPresent([String: Scalar].self, forKey: .data)
        }
        private enum Keys: String, CodingKey { case source, version, kind, data }
    }

    /// A JSON value as far as a bridge message reads it.
    private enum Scalar: Decodable, Equatable {
        case text(String), number(Double), boolean(Bool), other

        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let b = try? c.decode(Bool.self) { self = .boolean(b) }
            else if let n = try? c.decode(Double.self) { self = .number(n) }
            else if let s = try? c.decode(String.self) { self = .text(s) }
            else { self = .other }
        }

        /// Strings as they are, numbers and booleans as JSON writes them.
        var text: String? {
            switch self {
            case .text(let s): s
            case .number(let n): n == n.rounded() && abs(n) < 1e15 ? String(Int(n)) : String(n)
            case .boolean(let b): b ? "true" : "false"
            case .other: nil
            }
        }
    }
}
