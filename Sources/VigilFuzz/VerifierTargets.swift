import Foundation
import VigilCore
import VigilCrypto
import VigilVerifier

/// `VigilVerifier.verifyResult` on mutated compact JWS strings and key sets, from a result really
/// signed by a fresh key.
struct JWSTarget: FuzzTarget {
    let name = "jws"
    private let key = Ed25519PrivateKey()
    private let jws: String
    private let jwks: [UInt8]

    /// The unmutated result did not verify: the target would test nothing past the signature.
    struct SeedDoesNotVerify: Error {}

    init() throws {
        let verdict = VerdictPayload(iss: "https://vigil.example", aud: "tn_a", sub: "ses_a", iat: 1_800_000_000, jti: "res_a", externalRef: nil,
                                     outcome: "passed", score: 0.97, feedback: [], checks: ["challenges": .init(passed: true, score: 1)])
        jws = CompactJWS.signed(payload: Array(try JSONEncoder().encode(verdict)), key: key, kid: "k1").compact
        let keys = JWKSet(keys: [JWK(ed25519PublicKey: key.publicKey.rawRepresentation, kid: "k1")])
        jwks = Array(try JSONEncoder().encode(keys))
        guard (try? VigilVerifier.verifyResult(jws: jws, jwks: keys, audience: "tn_a", sessionId: "ses_a",
                                              now: Date(timeIntervalSince1970: 1_800_000_100))) != nil else { throw SeedDoesNotVerify() }
    }

    func run(index: Int, seed: UInt64) -> FuzzOutcome {
        var mutator = Mutator(seed: seed, index: index)
        let mutatedKeys = index % 3 == 2
        let text = mutatedKeys ? jws : String(decoding: mutator.bytes(Array(jws.utf8)), as: UTF8.self)
        let keys = mutatedKeys ? mutator.json(jwks) : jwks
        guard let set = try? JSONDecoder().decode(JWKSet.self, from: Data(keys)) else { return .handled }
        guard (try? VigilVerifier.verifyResult(jws: text, jwks: set, audience: "tn_a", sessionId: "ses_a",
                                               now: Date(timeIntervalSince1970: 1_800_000_100))) != nil else { return .handled }
        // A changed JWS that verifies must carry the signed bytes unchanged (say, other whitespace).
        let signed = (try? CompactJWS(parsing: text.trimmingCharacters(in: .whitespacesAndNewlines)))?.payload
        return signed == (try? CompactJWS(parsing: jws))?.payload ? .accepted : .forged
    }
}

/// `VigilVerifier.verifyWebhook` on mutated `Vigil-Signature` headers and bodies.
struct WebhookSignatureTarget: FuzzTarget {
    let name = "webhook-signature"
    private let secret = "whsec_fuzz"
    private let body = Array(#"{"type":"session.completed","sessionId":"ses_a","tenantId":"tn_a","status":"completed","createdAt":"2026-12-04T00:00:00Z"}"#.utf8)

    func run(index: Int, seed: UInt64) -> FuzzOutcome {
        var mutator = Mutator(seed: seed, index: index)
        let header = WebhookSignature.header(secret: secret, timestamp: 1_800_000_000, body: body)
        let mutatedBody = index % 2 == 1
        let text = mutatedBody ? header : String(decoding: mutator.bytes(Array(header.utf8)), as: UTF8.self)
        let sent = mutatedBody ? mutator.json(body) : body
        guard (try? VigilVerifier.verifyWebhook(body: sent, signatureHeader: text, secret: secret, now: Date(timeIntervalSince1970: 1_800_000_010))) != nil
        else { return .handled }
        return sent == body ? .accepted : .forged
    }
}

/// The native bridge's envelope parser (`BridgeMessage(envelope:)`) on mutated envelopes.
struct BridgeEnvelopeTarget: FuzzTarget {
    let name = "bridge-envelope"
    private let seeds = [
        #"{"source":"vigil","version":1,"kind":"event","data":{"type":"challenge.started","index":"0","kind":"turnLeft"}}"#,
        #"{"source":"vigil","version":1,"kind":"complete","data":{"status":"submitted"}}"#,
        #"{"source":"vigil","version":1,"kind":"cancel","data":{"session_id":"ses_a"}}"#,
        #"{"source":"vigil","version":1,"kind":"error","data":{"code":"camera_denied","message":"x"}}"#,
    ].map { Array($0.utf8) }

    func run(index: Int, seed: UInt64) -> FuzzOutcome {
        var mutator = Mutator(seed: seed, index: index)
        let input = seeds[index % seeds.count]
        let text = String(decoding: index % 2 == 0 ? mutator.json(input) : mutator.bytes(input), as: UTF8.self)
        return (try? BridgeMessage(envelope: text)) == nil ? .handled : .accepted
    }
}
