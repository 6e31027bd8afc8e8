import Foundation
import Testing
import VigilFace
@testable import VigilSynth

@Suite struct Y4MWriterTests {
    @Test func framesAreWrittenAsFullRangeYUV420AfterTheHeader() throws {
        // 2x2 blocks of white, red, black and blue.
        let blocks: [[UInt8]] = [[255, 255, 255], [255, 0, 0], [0, 0, 0], [0, 0, 255]]
        var rgb: [UInt8] = []
        for y in 0..<4 {
            for x in 0..<4 { rgb += blocks[(y / 2) * 2 + x / 2] }
        }
        let image = try Image(rgb: rgb, width: 4, height: 4)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("y4m-\(UUID().uuidString).y4m")
        defer { try? FileManager.default.removeItem(at: url) }
        let writer = try Y4MWriter(url: url, width: 4, height: 4, rate: FrameRate(frames: 15, per: 2))
        try writer.write(image)
        try writer.write(image)
        try writer.close()
        let bytes = [UInt8](try Data(contentsOf: url))
        let header = Array("YUV4MPEG2 W4 H4 F15:2 Ip A1:1 C420jpeg\n".utf8)
        let frame = Array("FRAME\n".utf8)
        #expect(bytes.count == header.count + 2 * (frame.count + 16 + 8))
        #expect(Array(bytes.prefix(header.count)) == header)
        let planes = Array(bytes[(header.count + frame.count)..<(header.count + frame.count + 24)])
        #expect(planes[0] == 255 && planes[2] == 76 && planes[8] == 0 && planes[10] == 29)   // Y: white, red, black, blue
        #expect(planes[16] == 128 && planes[17] == 85 && planes[19] == 255)                   // U: white, red, blue
        #expect(planes[20] == 128 && planes[21] == 255 && planes[23] == 107)                  // V: white, red, blue
    }
}
