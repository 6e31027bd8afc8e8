import Foundation
import Testing
import VigilDocument
import VigilFace

/// `POST /v1/documents/read` on pages drawn in OCR-B.
@Suite struct DocumentAPITests {
    static let zone = ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"]

    static func pageJPEG(_ zone: [String]) throws -> String { Data(try pageBytes(zone)).base64EncodedString() }

    /// The zone drawn on white, `copies` times one below the other (documents on a table).
    static func pageBytes(_ zone: [String], copies: Int = 1) throws -> [UInt8] {
        let lines = MRZRenderer(font: try OCRBFont(pixelHeight: 36)).render(zone, margin: 40)
        var page = PageImage(width: lines.width, height: lines.height * copies * 2)
        for copy in 0..<copies { page.paste(lines, x: 0, y: copy * lines.height * 2) }
        return try page.image().jpegData(quality: 90)
    }

    @Test func aDocumentIsReadWithAnAPIKeyAndNothingElse() throws {
        let t = try TestServer(inProcess: true, faces: .none)
        let read = t.json("POST", "/v1/documents/read", ["image": try Self.pageJPEG(Self.zone)])
        #expect(read.status == 200 && read.headers["cache-control"] == "no-store")
        #expect(read.json["documentNumber"] as? String == "L898902C3" && read.json["surname"] as? String == "ERIKSSON")
        // The test page is drawn in grey: a greyscale copy, as far as the signs can tell.
        let signs = try #require(read.json["signs"] as? [String: Any])
        #expect(signs["photocopy"] as? Bool == true && signs["screen"] as? Bool == false && signs["colourfulness"] is Double)
        let checks = try #require(read.json["checks"] as? [String: Any])
        #expect(checks["readable"] as? Bool == true && checks["checkDigits"] as? Bool == true && checks["expired"] as? Bool == true)
        let blank = t.json("POST", "/v1/documents/read", ["image": try Self.pageJPEG([])])
        #expect(blank.status == 200 && (blank.json["checks"] as? [String: Any])?["readable"] as? Bool == false && blank.json["reason"] != nil
                && blank.json["guidance"] as? String == "noDocument")
        #expect(t.json("POST", "/v1/documents/read", ["image": "%%%"]).errorCode == "invalid_field")
        #expect(t.json("POST", "/v1/documents/read", ["image": Data("not an image".utf8).base64EncodedString()]).errorCode == "invalid_image")
        #expect(t.json("POST", "/v1/documents/read", ["image": "", "extra": 1]).errorCode == "unknown_field")
        #expect(t.request("POST", "/v1/documents/read", body: Array(#"{"image":""}"#.utf8)).status == 401)
    }

    /// What is not one readable document is answered clearly, never with a crash or a guess.
    @Test func aHugePhotoATruncatedOneFillersAndTwoDocumentsGetClearAnswers() throws {
        let t = try TestServer(inProcess: true, faces: .none)
        func read(_ bytes: [UInt8]) -> TestServer.Response { t.json("POST", "/v1/documents/read", ["image": Data(bytes).base64EncodedString()]) }
        func unreadable(_ answer: TestServer.Response) -> Bool {
            answer.status == 200 && (answer.json["checks"] as? [String: Any])?["readable"] as? Bool == false && answer.json["reason"] is String
        }
        let page = try Self.pageBytes(Self.zone)
        // 40 megapixels announced in the header: refused before anything is decoded.
        var huge = page
        let sof = try #require(huge.indices.first { huge[$0] == 0xFF && huge[$0 + 1] == 0xC0 })
        huge.replaceSubrange((sof + 5)..<(sof + 9), with: [0x15, 0x7C, 0x1C, 0x84])   // 5500 x 7300
        let tooLarge = read(huge)
        #expect(tooLarge.errorCode == "invalid_image" && String(decoding: tooLarge.body, as: UTF8.self).contains("7300"))
        // Cut in half: refused or unreadable, never a reading.
        let truncated = read(Array(page.prefix(page.count / 2)))
        #expect(truncated.errorCode == "invalid_image" || unreadable(truncated), "\(String(decoding: truncated.body, as: UTF8.self))")
        // Lines of fillers only, and two documents in one photo.
        #expect(unreadable(read(try Self.pageBytes([String(repeating: "<", count: 44), String(repeating: "<", count: 44)]))))
        let two = read(try Self.pageBytes(Self.zone, copies: 2))
        #expect(unreadable(two) && (two.json["reason"] as? String)?.contains("more than one") == true && two.json["guidance"] as? String == "oneDocument",
                "\(two.json)")
    }
}
