import Foundation
import Testing
@testable import VigilFace

/// A phone's portrait photo, stored sideways with its Exif orientation tag, compares as the
/// person took it (it gave `no_face` before the tag was applied).
@Suite struct OrientationCLITests {
    @Test func compareReadsAPhotoStoredSidewaysWithItsOrientationTag() throws {
        let photo = try Image(contentsOf: URL(fileURLWithPath: "\(CLITests.fixtures)/obama.jpg"))
        // Stored turned a quarter clockwise; tag 8 says to turn it back counter-clockwise.
        let sideways = ImageOrientation.right.apply(to: photo.rgb, width: photo.width, height: photo.height)
        let stored = try Image(rgb: sideways.rgb, width: sideways.width, height: sideways.height).jpegData(quality: 92)
        let tiff: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 8, 0, 0, 0, 0, 0, 0]
        let app1 = Array("Exif\0\0".utf8) + tiff
        let tagged = [0xFF, 0xD8, 0xFF, 0xE1, 0, UInt8(app1.count + 2)] + app1 + stored.dropFirst(2)
        let path = try CLITests.temporaryFile(Data(tagged), suffix: ".jpg")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try CLITests.run(["compare", path, "\(CLITests.fixtures)/obama2.jpg"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect((result.json as? [String: Any])?["matched"] as? Bool == true)
    }
}
