import Foundation
import Testing
import VigilCore
import VigilCrypto

/// Published test vectors: RFC 8032 (Ed25519), RFC 4231 (HMAC-SHA256), FIPS 180-2 (SHA-256), RFC 8037 (JWS).
@Suite struct CryptoTests {
    static let rfc8032Seed = Hex.decode("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")!

    @Test func sha256MatchesTheStandardVectors() {
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex([UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func hmacMatchesRFC4231AndRejectsATamperedMac() {
        let key = [UInt8](repeating: 0x0b, count: 20), message = Array("Hi There".utf8)
        let mac = HMACSHA256.authenticate(message, key: key)
        #expect(Hex.encode(mac) == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(HMACSHA256.isValid(mac, for: message, key: key))
        var tampered = mac
        tampered[31] ^= 1
        #expect(!HMACSHA256.isValid(tampered, for: message, key: key))
        #expect(!HMACSHA256.isValid(mac.dropLast(), for: message, key: key))
    }

    @Test func ed25519MatchesRFC8032AndRejectsTampering() throws {
        let key = try Ed25519PrivateKey(seed: Self.rfc8032Seed)
        #expect(Hex.encode(key.publicKey.rawRepresentation) == "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
        let signature = key.signature(for: [UInt8]())
        #expect(Hex.encode(signature) == "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")
        #expect(key.publicKey.isValidSignature(signature, for: [UInt8]()))
        #expect(!key.publicKey.isValidSignature(signature, for: [0]))
        var flipped = signature
        flipped[10] ^= 0x40
        #expect(!key.publicKey.isValidSignature(flipped, for: [UInt8]()))
        #expect(!Ed25519PrivateKey().publicKey.isValidSignature(signature, for: [UInt8]()))
        #expect(!key.publicKey.isValidSignature(signature.prefix(63), for: [UInt8]()))
    }

    @Test func keysOfTheWrongLengthAreTypedErrors() {
        #expect(throws: CryptoError.self) { try Ed25519PrivateKey(seed: [1, 2, 3]) }
        #expect(throws: CryptoError.self) { try Ed25519PublicKey(rawRepresentation: [UInt8](repeating: 0, count: 31)) }
    }

    @Test func randomBytesDifferAndHaveTheAskedLength() {
        let a = SecureRandom.bytes(32), b = SecureRandom.bytes(32)
        #expect(a.count == 32 && a != b)
        #expect(SecureRandom.bytes(0).isEmpty)
    }

    @Test func constantTimeEqualityComparesWholeArrays() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equals([], []))
    }

    @Test func jwsMatchesRFC8037AndVerifies() throws {
        let key = try Ed25519PrivateKey(seed: Self.rfc8032Seed)
        let expected = "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc.hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg"
        let parsed = try CompactJWS(parsing: expected)
        #expect(parsed.header.alg == "EdDSA" && String(decoding: parsed.payload, as: UTF8.self) == "Example of Ed25519 signing")
        #expect(parsed.isSigned(by: key.publicKey))
        #expect(parsed.compact == expected)
        #expect(key.signature(for: parsed.signingInput) == parsed.signature)
    }

    @Test func aSignedJWSRoundTripsAndAnyTamperingFailsVerification() throws {
        let key = Ed25519PrivateKey()
        let jws = CompactJWS.signed(payload: Array(#"{"outcome":"passed"}"#.utf8), key: key, kid: "k1")
        let parsed = try CompactJWS(parsing: jws.compact)
        #expect(parsed.header.kid == "k1" && parsed.isSigned(by: key.publicKey))
        let parts = jws.compact.split(separator: ".").map(String.init)
        let forgedPayload = Base64URL.encode(Array(#"{"outcome":"failed"}"#.utf8))
        let forged = try CompactJWS(parsing: [parts[0], forgedPayload, parts[2]].joined(separator: "."))
        #expect(!forged.isSigned(by: key.publicKey))
        let noneHeader = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8))
        #expect(!(try CompactJWS(parsing: [noneHeader, parts[1], parts[2]].joined(separator: "."))).isSigned(by: key.publicKey))
        #expect(!parsed.isSigned(by: Ed25519PrivateKey().publicKey))
    }

    @Test func malformedCompactJWSIsATypedError() {
        for text in ["", "a.b", "a.b.c.d", "!!.e30.AA", "e30.e30.AA", String(repeating: "a", count: CompactJWS.maxLength + 1)] {
            #expect(throws: JWSError.self) { try CompactJWS(parsing: text) }
        }
    }

    @Test func aSealedBoxOpensOnlyUnderItsKeyAndUnaltered() {
        let key = SecureRandom.bytes(32), other = SecureRandom.bytes(32)
        let secret = Array("sessionToken=st_abc".utf8)
        let sealed = ChaChaPoly.seal(secret, key: key)
        #expect(sealed.count == 12 + secret.count + 16)
        #expect(ChaChaPoly.open(sealed, key: key) == secret)
        #expect(ChaChaPoly.seal(secret, key: key) != sealed, "a fresh nonce every time")
        #expect(!sealed.dropFirst(12).starts(with: secret.prefix(8)), "the plaintext is not in the box")
        #expect(ChaChaPoly.open(sealed, key: other) == nil)
        for index in [0, 12, sealed.count - 1] {
            var altered = sealed
            altered[index] ^= 1
            #expect(ChaChaPoly.open(altered, key: key) == nil, "byte \(index)")
        }
        #expect(ChaChaPoly.open(Array(sealed.prefix(20)), key: key) == nil)
        #expect(ChaChaPoly.open(sealed, key: Array(key.prefix(16))) == nil)
    }

    @Test func jwkCarriesTheRawPublicKey() throws {
        let key = Ed25519PrivateKey()
        let jwk = JWK(ed25519PublicKey: key.publicKey.rawRepresentation, kid: "k1")
        let decoded = try JSONDecoder().decode(JWKSet.self, from: JSONEncoder().encode(JWKSet(keys: [jwk])))
        #expect(decoded.key(id: "k1")?.ed25519PublicKey == key.publicKey)
        #expect(decoded.key(id: "k2") == nil)
    }

    @Test func base64URLRoundTripsAndRefusesOtherAlphabets() {
        for n in 0..<40 {
            let bytes = (0..<n).map { UInt8(($0 * 37 + n) & 255) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
        #expect(Base64URL.decode("ab+/") == nil)
        #expect(Base64URL.decode("abc=") == nil)
        #expect(Base64URL.decode("a") == nil)
    }
}
