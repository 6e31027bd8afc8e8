import Foundation

/// The `Vigil-Signature` header: `t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. Here
/// because the server signs with it and `VigilVerifier` checks it.
public enum WebhookSignature {
    /// Why a webhook's signature was refused.
    public enum Failure: Error, Equatable, Sendable {
        /// The header is missing parts or is not in the `t=...,v1=...` form.
        case malformedHeader
        /// No `v1` value matches the body (a wrong secret or a changed body).
        case mismatch
        /// The timestamp is further from now than the tolerance (a replayed or delayed delivery).
        case outsideTolerance(secondsOff: Int)
    }

    /// The header value for `body` sent at `timestamp` (Unix seconds).
    public static func header(secret: String, timestamp: Int, body: [UInt8]) -> String {
        "t=\(timestamp),v1=\(Hex.encode(mac(secret: secret, timestamp: timestamp, body: body)))"
    }

    /// Checks `header` against `body`: one of its `v1` values (several are allowed while a secret
    /// rotates) must match, in constant time, and `t` must be within `tolerance` of `now`.
    /// Returns the signed timestamp.
    @discardableResult
    public static func verify(body: [UInt8], header: String, secret: String, tolerance: TimeInterval = 300,
                              now: Date = Date()) throws(Failure) -> Int {
        guard header.utf8.count <= 4096 else { throw .malformedHeader }
        var timestamp: Int?
        var candidates: [[UInt8]] = []
        for part in header.split(separator: ",") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { throw .malformedHeader }
            switch pair[0] {
            case "t":
                guard timestamp == nil, let value = Int(pair[1]), value >= 0 else { throw .malformedHeader }
                timestamp = value
            case "v1":
                guard let mac = Hex.decode(pair[1]), mac.count == 32 else { throw .malformedHeader }
                candidates.append(mac)
            default:
                continue   // other schemes are for other verifiers
            }
        }
        guard let timestamp, !candidates.isEmpty else { throw .malformedHeader }
        let expected = mac(secret: secret, timestamp: timestamp, body: body)
        // Every candidate is compared, so the time taken does not tell which one matched.
        let matched = candidates.map { ConstantTime.equals($0, expected) }.contains(true)
        guard matched else { throw .mismatch }
        let off = Int(now.timeIntervalSince1970) - timestamp
        guard Double(abs(off)) <= tolerance else { throw .outsideTolerance(secondsOff: off) }
        return timestamp
    }

    private static func mac(secret: String, timestamp: Int, body: [UInt8]) -> [UInt8] {
        HMACSHA256.authenticate(Array("\(timestamp).".utf8) + body, key: Array(secret.utf8))
    }
}
