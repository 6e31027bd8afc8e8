import Foundation
import Testing
import VigilCore
import VigilDocument
import VigilFace
import VigilSynth
@testable import VigilServer

/// Sessions whose policy has a document step: the document's photo, then the live face, and both
/// in the signed result.
@Suite(.serialized) struct DocumentStepTests {
    static func fixture(_ name: String) throws -> Image {
        try Image(contentsOf: DeviceAPITests.fixtures.appendingPathComponent(name))
    }

    /// A passport data page of a fictitious person with `portrait`, as a phone would send it;
    /// `heldBelow` a face when given.
    static func passportJPEG(portrait: Image, expiry: MRZDate = MRZDate(year: MRZDate.today.year + 5, month: 6, day: 30),
                             number: String = "X4RT79M31", heldBelow: Image? = nil) throws -> [UInt8] {
        let fields = MRZComposer.Fields(documentCode: "P", issuingState: "UTO", documentNumber: number, surname: "HOPPER",
                                        givenNames: "GRACE BREWSTER", nationality: "UTO", dateOfBirth: MRZDate(year: 1966, month: 12, day: 9),
                                        expiryDate: expiry, sex: "F", optionalData: "")
        let page = try SpecimenDocument(format: .td3, fields: fields).render(width: 1600, portrait: portrait)
        guard let face = heldBelow else { return try page.image().jpegData(quality: 90) }
        // A phone held upright: the face above, the page held up below it on a dark sleeve.
        let top = face.resized(width: 1600, height: 1600 * face.height / face.width)
        var rgb = top.rgb + [UInt8](repeating: 50, count: 1600 * 60 * 3)
        rgb += page.pixels.flatMap { [$0, $0, $0] }
        return try Image(rgb: rgb, width: 1600, height: top.height + 60 + page.height).jpegData(quality: 90)
    }

    static func policy(_ document: [String: Any], maxAttempts: Int = 1) -> [String: Any] {
        ["policy": DeviceAPITests.onePersonPolicy.merging(["document": document, "maxAttempts": maxAttempts]) { _, b in b }]
    }

    func photo(_ t: TestServer, _ token: String, _ jpeg: [UInt8], type: String = "image/jpeg") -> TestServer.Response {
        t.request("POST", "/v1/client/document", bearer: token, headers: ["Content-Type": type], body: jpeg)
    }

    @Test func theDocumentComesBeforeTheFaceAndBothAreSigned() throws {
        let t = try TestServer(checkCaptureClock: false)
        let grace = try Self.fixture("grace_hopper.jpg")
        let rig = try FaceRig(photo: grace, name: "grace", analyzer: try FaceAnalyzer(models: TestServer.models))
        let (id, token) = t.createSession(Self.policy(["types": ["passport"]]))
        let poll = t.request("GET", "/v1/client/session", bearer: token).json
        let step = try #require(poll["document"] as? [String: Any])
        #expect(step["captured"] as? Bool == false && step["required"] as? Bool == true && step["types"] as? [String] == ["passport"])
        // No face before the document.
        #expect(DeviceAPITests().frame(t, token, grace.jpegData(quality: 80)).errorCode == "document_required")
        // A photo without a document is answered with what to do.
        let blank = photo(t, token, try Image(rgb: [UInt8](repeating: 200, count: 640 * 480 * 3), width: 640, height: 480).jpegData(quality: 80))
        #expect(blank.status == 200 && blank.json["captured"] as? Bool == false && blank.json["guidance"] as? String == "noDocument")
        let taken = photo(t, token, try Self.passportJPEG(portrait: grace))
        #expect(taken.status == 200 && taken.json["captured"] as? Bool == true && taken.json["type"] as? String == "TD3")
        #expect(photo(t, token, try Self.passportJPEG(portrait: grace)).errorCode == "document_already_captured")
        #expect((t.request("GET", "/v1/client/session", bearer: token).json["document"] as? [String: Any])?["captured"] as? Bool == true)

        let last = DeviceAPITests().livePerson(t, token, rig: rig, seed: 3)
        let result = try #require(t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["a"]).json["result"] as? [String: Any])
        let document = try #require(result["document"] as? [String: Any])
        #expect(document["type"] as? String == "TD3" && document["surname"] as? String == "HOPPER" && document["givenNames"] as? String == "GRACE BREWSTER")
        #expect(document["documentNumber"] as? String == "X4RT79M31" && document["dateOfBirth"] as? String == "1966-12-09")
        let checks = try #require(document["checks"] as? [String: Any])
        #expect(checks["readable"] as? Bool == true && checks["checkDigits"] as? Bool == true && checks["expired"] as? Bool == false)
        let face = try #require(document["face"] as? [String: Any])
        #expect(face["matched"] as? Bool == true, "the portrait is the live person: \(face)")
        #expect((document["signs"] as? [String: Any])?["screen"] is Bool, "the signs of a copy are signed with the document")
        #expect((result["checks"] as? [String: Any])?["documentMatch"] != nil && (result["checks"] as? [String: Any])?["document"] != nil)
        #expect(last.json["outcome"] as? String == "passed" || (result["feedback"] as? [String])?.contains("faceMismatch") == false)
        #expect(result["scope"] == nil)

        // The device gets a copy signed for it, without what identifies the person: the last
        // frame's answer and every poll carry the same one.
        let polled = try #require(t.request("GET", "/v1/client/session", bearer: token).json["signedResult"] as? String)
        #expect(last.json["signedResult"] as? String == polled)
        let copy = try #require(try JSONSerialization.jsonObject(with: Data(CompactJWS(parsing: polled).payload)) as? [String: Any])
        #expect(copy["scope"] as? String == "device" && copy["outcome"] as? String == result["outcome"] as? String && copy["sub"] as? String == id)
        let seen = try #require(copy["document"] as? [String: Any])
        #expect(seen["surname"] == nil && seen["givenNames"] == nil && seen["documentNumber"] == nil && seen["dateOfBirth"] == nil)
        #expect(seen["type"] as? String == "TD3" && seen["checks"] != nil && seen["face"] != nil)

        // The photo and what identifies the person are personal data: DELETE erases them and
        // keeps the type and the checks.
        #expect(try t.store.documentImage(sessionId: id) != nil)
        #expect(t.request("DELETE", "/v1/sessions/\(id)", bearer: t.apiKeys["a"]).status == 200)
        #expect(try t.store.documentImage(sessionId: id) == nil)
        let erased = try #require(t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["a"]).json["result"] as? [String: Any])
        let kept = try #require(erased["document"] as? [String: Any])
        #expect(kept["surname"] == nil && kept["documentNumber"] == nil && kept["dateOfBirth"] == nil && kept["type"] as? String == "TD3")
        #expect(kept["checks"] != nil && kept["face"] != nil && kept["signs"] != nil)
    }

    @Test func aDocumentWhosePortraitIsAnotherPersonFailsTheSession() throws {
        let t = try TestServer(checkCaptureClock: false)
        let rig = try FaceRig(photo: try Self.fixture("grace_hopper.jpg"), name: "grace", analyzer: try FaceAnalyzer(models: TestServer.models))
        let (id, token) = t.createSession(Self.policy([:]))
        #expect(photo(t, token, try Self.passportJPEG(portrait: try Self.fixture("obama.jpg"))).json["captured"] as? Bool == true)
        let last = DeviceAPITests().livePerson(t, token, rig: rig, seed: 3)
        #expect(last.json["outcome"] as? String == "failed")
        let result = try #require(t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["a"]).json["result"] as? [String: Any])
        #expect((result["feedback"] as? [String])?.first == "faceMismatch")
        let face = try #require((result["document"] as? [String: Any])?["face"] as? [String: Any])
        #expect(face["matched"] as? Bool == false && (face["similarity"] as? Double ?? 1) < 0.5)
    }

    /// Someone else's passport held up below one's own face: the portrait compared is the one
    /// printed on the page, not the larger face beside it.
    @Test func theFaceBesideTheDocumentIsNotItsPortrait() throws {
        let t = try TestServer(checkCaptureClock: false)
        let grace = try Self.fixture("grace_hopper.jpg")
        let rig = try FaceRig(photo: grace, name: "grace", analyzer: try FaceAnalyzer(models: TestServer.models))
        let (id, token) = t.createSession(Self.policy([:]))
        let held = try Self.passportJPEG(portrait: try Self.fixture("obama.jpg"), heldBelow: grace)
        #expect(photo(t, token, held).json["captured"] as? Bool == true)
        let last = DeviceAPITests().livePerson(t, token, rig: rig, seed: 3)
        #expect(last.json["outcome"] as? String == "failed")
        let result = try #require(t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["a"]).json["result"] as? [String: Any])
        #expect((result["feedback"] as? [String])?.first == "faceMismatch")
    }

    @Test func documentPhotosThatCannotBeTheDocumentAreAnsweredWithWhatToDo() throws {
        let t = try TestServer(checkCaptureClock: false)
        let grace = try Self.fixture("grace_hopper.jpg")
        // Not an accepted type, expired, and without a portrait where the face is compared.
        let (_, idCardsOnly) = t.createSession(Self.policy(["types": ["idCard", "td2"]]))
        #expect(photo(t, idCardsOnly, try Self.passportJPEG(portrait: grace)).json["guidance"] as? String == "typeNotAccepted")
        let (_, token) = t.createSession(Self.policy([:], maxAttempts: 2))
        #expect(photo(t, token, try Self.passportJPEG(portrait: grace, expiry: MRZDate(year: 2020, month: 1, day: 31))).json["guidance"] as? String == "expired")
        let faceless = try Image(rgb: [UInt8](repeating: 180, count: 400 * 500 * 3), width: 400, height: 500)
        #expect(photo(t, token, try Self.passportJPEG(portrait: faceless)).json["guidance"] as? String == "noPortrait")
        // Without a face to compare, no portrait is needed.
        let (_, unmatched) = t.createSession(Self.policy(["matchFace": false, "required": false]))
        #expect(photo(t, unmatched, try Self.passportJPEG(portrait: faceless)).json["captured"] as? Bool == true)
        // Bad requests.
        #expect(photo(t, token, Array("GIF89a....".utf8)).errorCode == "invalid_image")
        #expect(photo(t, token, [0xFF, 0xD8, 0xFF, 0xE0, 0, 0], type: "image/jpeg").errorCode == "invalid_image")
        #expect(photo(t, token, grace.jpegData(quality: 80), type: "image/png").errorCode == "unsupported_media_type")
        let (_, plain) = t.createSession(["policy": DeviceAPITests.onePersonPolicy])
        #expect(photo(t, plain, grace.jpegData(quality: 80)).errorCode == "document_not_requested")
        #expect(photo(t, "not-a-token", grace.jpegData(quality: 80)).status == 401)
    }

    /// `maxAttempts` bounds the document step too: each different document refused for what it
    /// is (expired, a type not accepted) counts once, and the last one allowed fails the session.
    @Test func documentsRefusedForWhatTheyAreUseUpTheAttempts() throws {
        let t = try TestServer(checkCaptureClock: false)
        let grace = try Self.fixture("grace_hopper.jpg")
        let (id, token) = t.createSession(Self.policy(["types": ["passport"]], maxAttempts: 2))
        let expired = try Self.passportJPEG(portrait: grace, expiry: MRZDate(year: 2020, month: 1, day: 31))
        for _ in 0..<3 {
            let again = photo(t, token, expired)
            #expect(again.json["guidance"] as? String == "expired" && again.json["lockedOut"] == nil, "the same document counts once")
        }
        let another = photo(t, token, try Self.passportJPEG(portrait: grace, expiry: MRZDate(year: 2021, month: 3, day: 1), number: "L898902C3"))
        #expect(another.status == 200 && another.json["guidance"] as? String == "expired" && another.json["lockedOut"] as? Bool == true)
        #expect(photo(t, token, try Self.passportJPEG(portrait: grace)).errorCode == "session_locked")
        let session = t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["a"]).json
        let result = try #require(session["result"] as? [String: Any])
        #expect(session["status"] as? String == "completed" && result["outcome"] as? String == "failed" && result["lockedOut"] as? Bool == true)
        #expect(result["feedback"] as? [String] == ["documentIssue"], "\(result)")
        #expect(((result["checks"] as? [String: Any])?["document"] as? [String: Any])?["reason"] as? String == "documents_refused")
        #expect(result["document"] == nil, "no document was captured")
    }

    @Test func anOptionalDocumentStepLetsTheFaceGoFirst() throws {
        let t = try TestServer(checkCaptureClock: false)
        let (_, token) = t.createSession(Self.policy(["required": false]))
        let grace = try Self.fixture("grace_hopper.jpg").resized(width: 640, height: 480)
        #expect(DeviceAPITests().frame(t, token, grace.jpegData(quality: 80)).status == 200)
    }

    @Test func aRiskLevelPresetCanCarryADocumentStep() throws {
        let t = try TestServer(inProcess: true, faces: .none)
        let (id, token) = t.createSession(["riskLevel": "high", "document": ["types": ["idCard"], "matchFace": false]])
        let step = try #require(t.request("GET", "/v1/client/session", bearer: token).json["document"] as? [String: Any])
        #expect(step["types"] as? [String] == ["idCard"] && step["matchFace"] as? Bool == false && step["required"] as? Bool == true)
        let policy = try #require(t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["a"]).json["policy"] as? [String: Any])
        #expect(policy["fixed"] as? [String] == ["blink"] && policy["reflectionStrict"] as? Bool == true, "the high preset: \(policy)")
        // An explicit policy carries its own step; the two together are refused, not merged.
        let both = t.json("POST", "/v1/sessions", Self.policy([:]).merging(["document": ["types": ["passport"]]]) { a, _ in a })
        #expect(both.errorCode == "invalid_field" && String(decoding: both.body, as: UTF8.self).contains("inside 'policy'"))
        let empty = t.json("POST", "/v1/sessions", ["riskLevel": "low", "document": ["types": [String]()]])
        #expect(empty.errorCode == "invalid_policy" && String(decoding: empty.body, as: UTF8.self).contains("document.types"))
    }

    @Test func anInvalidDocumentPolicyIsRefusedNamingItsField() throws {
        let t = try TestServer(inProcess: true, faces: .none)
        let empty = t.json("POST", "/v1/sessions", Self.policy(["types": []]))
        #expect(empty.errorCode == "invalid_policy" && String(decoding: empty.body, as: UTF8.self).contains("document.types"))
        let twice = t.json("POST", "/v1/sessions", Self.policy(["types": ["passport", "passport"]]))
        #expect(twice.errorCode == "invalid_policy" && String(decoding: twice.body, as: UTF8.self).contains("document.types"))
        let unknown = t.json("POST", "/v1/sessions", Self.policy(["types": ["drivingLicence"]]))
        #expect(unknown.errorCode == "invalid_field" && String(decoding: unknown.body, as: UTF8.self).contains("policy.document.types"))
        let wrongType = t.json("POST", "/v1/sessions", Self.policy(["matchFace": "yes"]))
        #expect(wrongType.errorCode == "invalid_field" && String(decoding: wrongType.body, as: UTF8.self).contains("policy.document.matchFace"))
    }
}
