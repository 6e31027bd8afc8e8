import Foundation
import Testing
import VigilCore
import VigilFace
import VigilLiveness
import VigilSynth
@testable import VigilServer

@Suite(.serialized) struct FaceMatchTests {
    static func photo(_ name: String) throws -> String {
        try Data(contentsOf: DeviceAPITests.fixtures.appendingPathComponent(name)).base64EncodedString()
    }

    @Test func comparingTwoPhotosMatchesTheSamePersonOnly() throws {
        let t = try TestServer()
        let same = t.json("POST", "/v1/compare", ["imageA": try Self.photo("obama.jpg"), "imageB": try Self.photo("obama2.jpg")])
        #expect(same.status == 200 && same.json["matched"] as? Bool == true)
        #expect((same.json["similarity"] as? Double ?? 0) > 0.5 && (same.json["distance"] as? Double ?? 1) < 0.6)
        let other = t.json("POST", "/v1/compare", ["imageA": try Self.photo("obama.jpg"), "imageB": try Self.photo("biden.jpg")])
        #expect(other.status == 200 && other.json["matched"] as? Bool == false && (other.json["similarity"] as? Double ?? 1) < 0.5)
        #expect(other.json["facesInA"] as? Int == 1)
    }

    @Test func badComparisonsGetTheirOwnErrors() throws {
        let t = try TestServer()
        let obama = try Self.photo("obama.jpg")
        let blank = Data(try Image(rgb: [UInt8](repeating: 128, count: 320 * 240 * 3), width: 320, height: 240).jpegData(quality: 80)).base64EncodedString()
        #expect(t.json("POST", "/v1/compare", tenant: nil, ["imageA": obama, "imageB": obama]).status == 401)
        #expect(t.json("POST", "/v1/compare", ["imageA": obama]).errorCode == "missing_field")
        #expect(t.json("POST", "/v1/compare", ["imageA": obama, "imageB": obama, "threshold": 0.9]).errorCode == "unknown_field")
        #expect(t.json("POST", "/v1/compare", ["imageA": obama, "imageB": "not base64!"]).errorCode == "invalid_field")
        #expect(t.json("POST", "/v1/compare", ["imageA": obama, "imageB": Data("GIF89a".utf8).base64EncodedString()]).errorCode == "invalid_image")
        let noFace = t.json("POST", "/v1/compare", ["imageA": obama, "imageB": blank])
        #expect(noFace.status == 422 && noFace.errorCode == "no_face")
        #expect(String(decoding: noFace.body, as: UTF8.self).contains("imageB"))
        let huge = String(repeating: "A", count: PhotoUpload.maxBytes / 3 * 4 + 8)
        #expect(t.json("POST", "/v1/compare", ["imageA": huge, "imageB": obama]).errorCode == "image_too_large")
    }

    @Test func aReferenceImageWithoutAFaceIsRefusedAndNoSessionIsMade() throws {
        let t = try TestServer()
        let blank = Data(try Image(rgb: [UInt8](repeating: 90, count: 320 * 240 * 3), width: 320, height: 240).jpegData(quality: 80)).base64EncodedString()
        #expect(t.json("POST", "/v1/sessions", ["riskLevel": "low", "referenceImage": blank]).errorCode == "no_face")
        #expect(t.json("POST", "/v1/sessions", ["riskLevel": "low", "referenceImage": "%%%"]).errorCode == "invalid_field")
        #expect(try t.store.sessions(tenantId: nil, limit: 10).isEmpty)
    }

    @Test func aLiveFaceThatIsNotTheReferencePersonFailsWithFaceMismatch() throws {
        let t = try TestServer()
        let rig = try FaceRig(photo: try Image(contentsOf: DeviceAPITests.fixtures.appendingPathComponent("grace_hopper.jpg")), name: "grace",
                              analyzer: try FaceAnalyzer(models: TestServer.models))
        let (id, _, last) = DeviceAPITests().livePersonSession(t, rig: rig, seed: 3, extra: ["referenceImage": try Self.photo("obama.jpg")])
        #expect(last.json["outcome"] as? String == "failed")
        let result = try #require(t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["a"]).json["result"] as? [String: Any])
        #expect((result["feedback"] as? [String])?.first == "faceMismatch")
        let match = try #require(result["match"] as? [String: Any])
        #expect(match["matched"] as? Bool == false && (match["similarity"] as? Double ?? 1) < 0.5)
        #expect((result["checks"] as? [String: Any])?["match"] != nil)
        // The reference face is personal data: DELETE erases it.
        #expect(try t.store.referenceFace(sessionId: id) != nil)
        #expect(t.request("DELETE", "/v1/sessions/\(id)", bearer: t.apiKeys["a"]).status == 200)
        #expect(try t.store.referenceFace(sessionId: id) == nil)
    }
}
