import Foundation
import Testing
import VigilDocument
import VigilFace

/// `POST /v1/documents/read` on pages drawn in OCR-B.
@Suite struct DocumentAPITests {
    static let zone = ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"]

    static func pageJPEG(_ zone: [String]) throws -> String {
        let lines = MRZRenderer(font: try OCRBFont(pixelHeight: 36)).render(zone, margin: 40)
        let rgb = lines.pixels.flatMap { [$0, $0, $0] }
        return Data(try Image(rgb: rgb, width: lines.width, height: lines.height).jpegData(quality: 90)).base64EncodedString()
    }

    @Test func aDocumentIsReadWithAnAPIKeyAndNothingElse() throws {
        let t = try TestServer(inProcess: true, faces: false)
        let read = t.json("POST", "/v1/documents/read", ["image": try Self.pageJPEG(Self.zone)])
        #expect(read.status == 200 && read.headers["cache-control"] == "no-store")
        #expect(read.json["documentNumber"] as? String == "L898902C3" && read.json["surname"] as? String == "ERIKSSON")
        let checks = try #require(read.json["checks"] as? [String: Any])
        #expect(checks["readable"] as? Bool == true && checks["checkDigits"] as? Bool == true && checks["expired"] as? Bool == true)
        let blank = t.json("POST", "/v1/documents/read", ["image": try Self.pageJPEG([])])
        #expect(blank.status == 200 && (blank.json["checks"] as? [String: Any])?["readable"] as? Bool == false && blank.json["reason"] != nil)
        #expect(t.json("POST", "/v1/documents/read", ["image": "%%%"]).errorCode == "invalid_field")
        #expect(t.json("POST", "/v1/documents/read", ["image": Data("not an image".utf8).base64EncodedString()]).errorCode == "invalid_image")
        #expect(t.json("POST", "/v1/documents/read", ["image": "", "extra": 1]).errorCode == "unknown_field")
        #expect(t.request("POST", "/v1/documents/read", body: Array(#"{"image":""}"#.utf8)).status == 401)
    }
}
